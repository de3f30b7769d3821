/**
 * LeaseHolder: the process side of a concurrency limit's leases on a store that keeps them in its
 * rows (./lease-rows.ts): a binding for core's ConcurrencyLimiter that remembers which units this
 * process holds, renews them and gives them back. The store supplies `run`, which decides one call
 * with its LeaseWork in the store's transaction, and builds composite parts from `work`.
 *
 * - A crashed process's leases expire by time, on the store's clock, not by anyone noticing the
 *   process is gone: each lease expires `ttlMs` after it was taken or last renewed. While this binding
 *   holds leases, one unref'd timer renews them every ttlMs / 3 (one call per key held); a lease that
 *   already expired is never revived (another request may have its place). A request longer than
 *   ttlMs keeps its lease while its process lives.
 * - `refund` (core's `release`) gives back this process's own units of the key, the latest taken
 *   first, never another's; a release without a lease does nothing. One the store cannot take is
 *   reported and kept, and sent again with the next renewal (the lease expires anyway).
 * - The failure policy decides an acquire the store cannot: 'fallback' takes the lease on the
 *   fallback (its release frees it there), 'open' admits without a lease, 'closed' denies.
 */
import type { Algorithm } from '../../algorithm.js';
import type { Decision } from '../../decision.js';
import type { ConcurrencyPolicy } from '../../policy.js';
import type { StoreBinding } from '../../store.js';
import { type FailurePolicy, decideByPolicy } from '../remote/decisions.js';
import { Failure, type FailureInfo, failureInfo } from '../remote/failure.js';
import { optionFail } from '../remote/options.js';
import type { LeaseWork } from './lease-rows.js';

/** The default `leaseTtlMs` of a store that keeps leases: a stopped process's concurrency leases expire after 30 s. */
export const DEFAULT_CONCURRENCY_LEASE_TTL_MS = 30_000;

/** leaseTtlOption validates a store's `leaseTtlMs` option (an integer from 100 to 86,400,000; default DEFAULT_CONCURRENCY_LEASE_TTL_MS). */
export function leaseTtlOption(owner: string, value: unknown): number {
  if (value === undefined) return DEFAULT_CONCURRENCY_LEASE_TTL_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100 || value > 86_400_000) optionFail(owner, 'leaseTtlMs', 'an integer from 100 to 86400000', value);
  return value as number;
}

/** LeaseCall is what a lease binding asks its store: decide ('consume', 'peek'), or give back, renew or empty. */
export type LeaseCall = 'consume' | 'peek' | 'release' | 'renew' | 'reset';

/** LeaseAnswer is a call's decisions (consume and peek) or undefined, or the Failure that kept the store from deciding. */
export type LeaseAnswer = readonly Decision[] | undefined | Failure;

export interface LeaseHolderOptions {
  readonly algorithm: Algorithm<ConcurrencyPolicy>;
  readonly policy: ConcurrencyPolicy;
  /** How long a lease lives without renewal. */
  readonly ttlMs: number;
  /** The in-process binding of this policy's share that decides by the 'fallback' policy. */
  readonly fallback: StoreBinding<'sync'>;
  readonly onFailure: FailurePolicy;
  report(info: FailureInfo): void;
  /** run decides one call of this binding on `key` with `work` in the store's transaction; it never rejects. */
  run(call: LeaseCall, key: string, now: number, cost: number, work: LeaseWork): Promise<LeaseAnswer>;
}

/** holderId is a random integer below 2^47 (Web Crypto: core runs on every runtime), naming this binding's leases. */
function holderId(): number {
  const words = globalThis.crypto.getRandomValues(new Uint32Array(2));
  return ((words[0] as number) & 0x7fff) * 2 ** 32 + (words[1] as number);
}

/** A unit held: a lease's number, or one taken by the failure policy. */
type Unit = number | typeof OPEN | typeof FALLBACK;
const OPEN = 'open';
const FALLBACK = 'fallback';

export class LeaseHolder implements StoreBinding<'async'> {
  readonly algorithm: Algorithm<ConcurrencyPolicy>;
  readonly policy: ConcurrencyPolicy;
  readonly fallback: StoreBinding<'sync'>;
  readonly #options: LeaseHolderOptions;
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

  constructor(options: LeaseHolderOptions) {
    this.#options = options;
    this.algorithm = options.algorithm;
    this.policy = options.policy;
    this.fallback = options.fallback;
  }

  /** held is how many units this process holds for `key` (tests and diagnostics). */
  held(key: string): number {
    return this.#held.get(key)?.length ?? 0;
  }

  /** renewing tells whether the renewal timer runs (it does exactly while leases are held or releases are owed). */
  get renewing(): boolean {
    return this.#timer !== undefined;
  }

  /** work is this binding's lease work for one call (`seqs`: the units to give back or renew); a composite's store puts it in its call. */
  work(seqs: readonly number[] = []): LeaseWork {
    return { holder: this.#holder, ttlMs: this.#options.ttlMs, seqs, nextSeq: () => this.#seq++, taken: [] };
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    return this.#acquire(key, now, cost, true);
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.#acquire(key, now, cost, false);
  }

  async allow(key: string, now: number, cost: number): Promise<boolean> {
    return (await this.#acquire(key, now, cost, true)).allowed;
  }

  /** reset deletes every lease of `key` (every process's), in the store and on the fallback, and forgets this process's. */
  async reset(key: string): Promise<void> {
    this.fallback.reset(key);
    this.#forget(key);
    this.#unreleased.delete(key);
    const answer = await this.#options.run('reset', key, 0, 0, this.work());
    if (answer instanceof Failure) this.#report('reset', answer);
  }

  /** refund releases up to `cost` of this process's units of `key`, the latest taken first. */
  refund(key: string, now: number, cost: number): Promise<void> {
    this.#see(now);
    const units = this.#held.get(key);
    if (units === undefined) return Promise.resolve();
    const seqs: number[] = [];
    let fallback = 0;
    for (let i = 0; i < cost && units.length > 0; i++) {
      const unit = units.pop() as Unit;
      if (typeof unit === 'number') seqs.push(unit);
      else if (unit === FALLBACK) fallback++;
    }
    if (fallback > 0) this.fallback.refund?.(key, now, fallback);
    if (units.length === 0) this.#forget(key);
    if (seqs.length === 0) return Promise.resolve();
    return this.#release(key, now, seqs);
  }

  /** taken records the leases a composite's admitted call took with `work`. */
  taken(key: string, work: LeaseWork): void {
    this.#record(key, work.taken);
  }

  /** fellBack records `cost` units a composite's failure policy admitted ('open': no lease). */
  fellBack(key: string, cost: number, open: boolean): void {
    this.#record(key, new Array<Unit>(cost).fill(open ? OPEN : FALLBACK));
  }

  /** renew moves every lease this process holds to a fresh expiry, and sends again the releases owed (the timer calls it). */
  renew(now = this.#lastNow + (performance.now() - this.#lastSeenAt)): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const [key, seqs] of this.#unreleased) {
      this.#unreleased.delete(key);
      sends.push(this.#release(key, now, seqs));
    }
    for (const [key, units] of this.#held) {
      const mine = units.filter((unit): unit is number => typeof unit === 'number');
      if (mine.length === 0) continue;
      const work = this.work(mine);
      sends.push(
        this.#options.run('renew', key, now, 0, work).then((answer) => {
          if (answer instanceof Failure) this.#report('renew', answer);
          else this.#keep(key, new Set(mine), new Set(work.taken));
        }),
      );
    }
    return Promise.all(sends).then(() => this.#idle());
  }

  async #acquire(key: string, now: number, cost: number, commit: boolean): Promise<Decision> {
    this.#see(now);
    const work = this.work();
    const answer = await this.#options.run(commit ? 'consume' : 'peek', key, now, cost, work);
    if (!(answer instanceof Failure)) {
      const decision = (answer as readonly Decision[])[0] as Decision;
      if (commit && decision.allowed) this.#record(key, work.taken);
      return decision;
    }
    this.#report(commit ? 'consume' : 'peek', answer);
    const decision = decideByPolicy(this.#options.onFailure, this.policy, this.fallback, key, now, cost, commit);
    if (commit && decision.allowed) this.#record(key, new Array<Unit>(cost).fill(decision.failure === 'open' ? OPEN : FALLBACK));
    return decision;
  }

  /** release gives `seqs` back in the store; what it cannot take is kept for the next renewal. */
  async #release(key: string, now: number, seqs: readonly number[]): Promise<void> {
    const answer = await this.#options.run('release', key, now, seqs.length, this.work(seqs));
    if (!(answer instanceof Failure)) return;
    this.#report('refund', answer);
    this.#unreleased.set(key, [...(this.#unreleased.get(key) ?? []), ...seqs]);
    this.#arm();
  }

  /**
   * keep drops the units of `key` a renewal `asked` for that the store no longer held (expired
   * before it); units taken since the renewal was sent are not its business.
   */
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
    this.#timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.#options.ttlMs / 3)));
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
    this.#options.report(failureInfo(operation, this.policy.name, failure));
  }
}
