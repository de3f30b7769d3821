/**
 * RowLeases: a concurrency limit's binding on a row store (core's ConcurrencyLimiter). Each unit in
 * flight is a lease in its key's row ([expiresAt, holder, seq]: core's lease rows), taken by core's
 * concurrency step on the number of leases still live, in the store's atomic op like any call;
 * composites take leases beside rate limits all or nothing (./composite.ts). This binding remembers
 * which units this process holds, renews them and gives them back:
 *
 * - A crashed process's leases expire by time, on the store's clock, not by anyone noticing the
 *   process is gone: each lease expires `leaseTtlMs` after it was taken or last renewed. While this
 *   binding holds leases, one unref'd timer renews them every leaseTtlMs / 3 (one op per key held); a
 *   lease that already expired is never revived (another request may have its place).
 * - `refund` (core's `release`) gives back this process's own units of the key, the latest taken
 *   first, never another's; a release without a lease does nothing. One the store cannot take is
 *   reported and kept, and sent again with the next renewal (the lease expires anyway).
 * - The failure policy decides an acquire the store cannot: 'fallback' takes the lease on the
 *   fallback (its release frees it there), 'open' admits without a lease, 'closed' denies.
 */
import type { Algorithm } from '../../algorithm.js';
import type { Decision } from '../../decision.js';
import type { ConcurrencyPolicy, Policy } from '../../policy.js';
import type { Mode, Result, StoreBinding } from '../contract.js';
import type { LeaseWork } from '../leases/lease-rows.js';
import { decideByPolicy } from '../remote/decisions.js';
import { Failure, type FailureInfo } from '../remote/failure.js';
import type { Fallback } from '../remote/fallback.js';
import type { RowEngine } from './engine.js';
import type { Part, RowOp } from './ops.js';
import { nameHead, rowId } from './row-id.js';
import type { Runner } from './runner.js';

/** holderId is a random integer below 2^47 (Web Crypto: core runs on every runtime), naming this binding's leases. */
function holderId(): number {
  const words = globalThis.crypto.getRandomValues(new Uint32Array(2));
  return ((words[0] as number) & 0x7fff) * 2 ** 32 + (words[1] as number);
}

/** A unit held: a lease's number, or one taken by the failure policy. */
type Unit = number | typeof OPEN | typeof FALLBACK;
const OPEN = 'open';
const FALLBACK = 'fallback';

export class RowLeases<M extends Mode = Mode> implements StoreBinding<M> {
  /** @internal The store's shared state, for the kit's files. */
  readonly engine: RowEngine<M>;
  readonly algorithm: Algorithm<ConcurrencyPolicy>;
  readonly policy: ConcurrencyPolicy;
  readonly #runner: Runner<M>;
  readonly #head: string;
  readonly #ttlMs: number;
  readonly #fallback: Fallback;
  readonly #holder = holderId();
  #seq = 0;
  /** This process's units in flight, by key. */
  readonly #held = new Map<string, Unit[]>();
  /** Leases released here that the store has not yet taken back, by key. */
  readonly #unreleased = new Map<string, number[]>();
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The latest `now` a call brought, and performance.now() then: the renewal's clock. */
  #lastNow = 0;
  #lastSeenAt = 0;

  /** @internal Made by RowStore.bind. */
  constructor(engine: RowEngine<M>, algorithm: Algorithm<ConcurrencyPolicy>, policy: ConcurrencyPolicy, ttlMs: number) {
    this.engine = engine;
    this.algorithm = algorithm;
    this.policy = policy;
    this.#runner = engine.runner;
    this.#head = nameHead(policy.name);
    this.#ttlMs = ttlMs;
    this.#fallback = engine.fallbackOf(algorithm as unknown as Algorithm<Policy>, policy);
  }

  /** fallback is the in-process binding of this policy's share that decides while the store cannot. */
  get fallback(): StoreBinding<'sync'> {
    return this.#fallback.binding;
  }

  /** held is how many units this process holds for `key` (tests and diagnostics). */
  held(key: string): number {
    return this.#held.get(key)?.length ?? 0;
  }

  /** renewing tells whether the renewal timer runs (it does exactly while leases are held or releases are owed). */
  get renewing(): boolean {
    return this.#timer !== undefined;
  }

  /** @internal part is this policy's share of a call on `key`, with fresh lease work (`seqs`: the units to give back or renew). */
  part(key: string, seqs: readonly number[] = []): Part & { readonly lease: LeaseWork } {
    const lease: LeaseWork = { holder: this.#holder, ttlMs: this.#ttlMs, seqs, nextSeq: () => this.#seq++, taken: [] };
    return { id: rowId(this.#head, key), name: this.policy.name, algorithm: this.algorithm as unknown as Algorithm<Policy>, policy: this.policy, lease };
  }

  consume(key: string, now: number, cost: number): Result<M, Decision> {
    return this.#acquire(key, now, cost, true, ownDecision);
  }

  peek(key: string, now: number, cost: number): Result<M, Decision> {
    return this.#acquire(key, now, cost, false, ownDecision);
  }

  allow(key: string, now: number, cost: number): Result<M, boolean> {
    return this.#acquire(key, now, cost, true, (d) => d.allowed);
  }

  /** reset deletes every lease of `key` (every process's), in the store and on the fallback, and forgets this process's. */
  reset(key: string): Result<M, void> {
    this.fallback.reset(key);
    this.#forget(key);
    this.#unreleased.delete(key);
    return this.#runner.run({ kind: 'reset', parts: [this.part(key)], now: 0 }, (answer) => {
      if (answer instanceof Failure) this.#report('reset', answer);
    });
  }

  /** refund releases up to `cost` of this process's units of `key`, the latest taken first. */
  refund(key: string, now: number, cost: number): Result<M, void> {
    this.#see(now);
    const units = this.#held.get(key);
    const seqs: number[] = [];
    let fallback = 0;
    for (let i = 0; units !== undefined && i < cost && units.length > 0; i++) {
      const unit = units.pop() as Unit;
      if (typeof unit === 'number') seqs.push(unit);
      else if (unit === FALLBACK) fallback++;
    }
    if (fallback > 0) this.fallback.refund?.(key, now, fallback);
    if (units !== undefined && units.length === 0) this.#forget(key);
    return this.#release(key, now, seqs);
  }

  /** @internal taken records the leases a composite's admitted call took with `work`. */
  taken(key: string, work: LeaseWork): void {
    this.#record(key, work.taken);
  }

  /** @internal fellBack records `cost` units a composite's failure policy admitted ('open': no lease). */
  fellBack(key: string, cost: number, open: boolean): void {
    this.#record(key, new Array<Unit>(cost).fill(open ? OPEN : FALLBACK));
  }

  /** renew moves every lease this process holds to a fresh expiry, and sends again the releases owed (the timer calls it). */
  renew(now = this.#lastNow + (performance.now() - this.#lastSeenAt)): Result<M, void> {
    const sends: unknown[] = [];
    for (const [key, seqs] of this.#unreleased) {
      this.#unreleased.delete(key);
      sends.push(this.#release(key, now, seqs));
    }
    for (const [key, units] of this.#held) {
      const mine = units.filter((unit): unit is number => typeof unit === 'number');
      if (mine.length === 0) continue;
      const part = this.part(key, mine);
      const op: RowOp = { kind: 'renew', parts: [part], now };
      sends.push(
        this.#runner.run(op, (answer) => {
          if (answer instanceof Failure) this.#report('renew', answer);
          else this.#keep(key, new Set(mine), new Set(part.lease.taken));
        }),
      );
    }
    if (this.#runner.mode === 'sync') return this.#idle() as Result<M, void>;
    return Promise.all(sends).then(() => this.#idle()) as Result<M, void>;
  }

  #acquire<T>(key: string, now: number, cost: number, commit: boolean, map: (d: Decision) => T): Result<M, T> {
    this.#see(now);
    const part = this.part(key);
    return this.#runner.run({ kind: 'decide', parts: [part], now, cost, commit }, (answer) => {
      if (!(answer instanceof Failure)) {
        const decision = (answer as readonly Decision[])[0] as Decision;
        if (commit && decision.allowed) this.#record(key, part.lease.taken);
        return map(decision);
      }
      this.#report(commit ? 'consume' : 'peek', answer);
      const decision = decideByPolicy(this.engine.onFailure, this.policy, this.fallback, key, now, cost, commit);
      if (commit && decision.allowed) this.#record(key, new Array<Unit>(cost).fill(decision.failure === 'open' ? OPEN : FALLBACK));
      return map(decision);
    });
  }

  /** release gives `seqs` back in the store; what it cannot take is kept for the next renewal. */
  #release(key: string, now: number, seqs: readonly number[]): Result<M, void> {
    if (seqs.length === 0) return (this.#runner.mode === 'sync' ? undefined : Promise.resolve()) as Result<M, void>;
    return this.#runner.run({ kind: 'refund', parts: [this.part(key, seqs)], now, cost: seqs.length }, (answer) => {
      if (!(answer instanceof Failure)) return;
      this.#report('refund', answer);
      this.#unreleased.set(key, [...(this.#unreleased.get(key) ?? []), ...seqs]);
      this.#arm();
    });
  }

  /** keep drops the units of `key` a renewal `asked` for that the store no longer held (expired before it). */
  #keep(key: string, asked: ReadonlySet<number>, kept: ReadonlySet<number>): void {
    const units = this.#held.get(key);
    if (units === undefined) return;
    const left = units.filter((unit) => typeof unit !== 'number' || !asked.has(unit) || kept.has(unit));
    if (left.length === 0) this.#forget(key);
    else this.#held.set(key, left);
  }

  #record(key: string, units: readonly Unit[]): void {
    if (units.length === 0) return;
    const held = this.#held.get(key);
    if (held === undefined) this.#held.set(key, [...units]);
    else held.push(...units);
    this.#arm();
  }

  #arm(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.#ttlMs / 3)));
    (this.#timer as { unref?: () => unknown }).unref?.();
  }

  #forget(key: string): void {
    this.#held.delete(key);
    this.#idle();
  }

  /** idle stops the renewal timer once nothing is held and no release is owed. */
  #idle(): void {
    if (this.#held.size === 0 && this.#unreleased.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #see(now: number): void {
    this.#lastNow = now;
    this.#lastSeenAt = performance.now();
  }

  #report(operation: FailureInfo['operation'], failure: Failure): void {
    this.engine.report(operation, this.policy.name, failure);
  }
}

function ownDecision(decision: Decision): Decision {
  return decision;
}
