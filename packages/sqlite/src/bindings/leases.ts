/**
 * SqliteLeases: a concurrency limit's binding on a SqliteStore (core's ConcurrencyLimiter). Each unit
 * in flight is a row of rk_leases, shared by every process, with the process that holds it (a random
 * id per binding) and the instant it expires; the key's row in rk_state holds the count, which core's
 * concurrency step decides on, in the same transaction as the lease rows change.
 *
 * - A crashed process's leases expire by time, not by anyone noticing the process is gone: each lease
 *   expires `leaseTtlMs` after it was taken or last renewed, on the limiters' clock (the host's clock,
 *   which every process shares). While this binding holds leases, one unref'd timer renews them all
 *   every leaseTtlMs / 3, in one transaction; a lease that already expired is never revived (another
 *   request may have its place). A request longer than leaseTtlMs keeps its lease while its process
 *   lives; a SIGKILLed process's leases are free leaseTtlMs after their last renewal at most.
 * - Expired leases are deleted without a scan: a key's own when it is decided (the rows of one key,
 *   by the primary key's range), and up to two others anywhere (by the expiry index) with each
 *   admission, so the keys of processes that died are freed even if no one asks for them again.
 * - `refund` (core's `release`) removes this process's own units of the key, the latest taken first,
 *   never another's; a release without a lease does nothing. One the file cannot take is reported and
 *   kept, and sent again with this binding's next transaction or renewal (the lease expires anyway).
 * - The failure policy decides an acquire the file cannot: 'fallback' takes the lease on the fallback
 *   (its release frees it there), 'open' admits without a lease, 'closed' denies.
 * - Bounded like the memory store: a key holding leases is never evicted; while maxKeys keys hold
 *   leases, a new key is denied as if it held the whole limit.
 */
import { randomInt } from 'node:crypto';
import { type Algorithm, type ConcurrencyPolicy, type Decision, type Policy, type StoreBinding } from '@ratekeeper/core';
import { type StepOutput, stepOutput, toDecision } from '@ratekeeper/core/store';
import type { Fallback } from '@ratekeeper/core/store';
import { type Backend, decideWithout, fallbackOf, info } from './backend.js';
import type { Member } from './binding.js';
import { decodeState, encodeState } from '../rows/codec.js';
import { Failure } from '../file/failure.js';
import { encodeKey } from '../rows/keys.js';
import type { Sql } from '../sql/sql.js';
import { PolicyTable } from '../rows/table.js';

/** A unit held: a lease row (its seq and expiry), or one taken by the failure policy. */
type Unit = { readonly seq: number; expiresAt: number } | typeof OPEN | typeof FALLBACK;
const OPEN = 0;
const FALLBACK = 1;
/** How many expired leases of other keys one admission deletes at most. */
const EXPIRED_BATCH = 2;

export class SqliteLeases implements StoreBinding<'sync'>, Member {
  readonly backend: Backend;
  readonly table: PolicyTable<ConcurrencyPolicy>;
  readonly #holder = randomInt(2 ** 47);
  #seq = 0;
  readonly #out: StepOutput;
  readonly #fallbacks: Fallback;
  /** This process's units in flight, by stored key (as text: ../rows/keys.ts's bytes, one character each). */
  readonly #held = new Map<string, { stored: Uint8Array; units: Unit[] }>();
  /** Units taken in the current transaction, kept once it commits. */
  #staged: { stored: Uint8Array; units: Unit[] } | undefined;
  /** Lease rows released here that the file has not yet removed. */
  readonly #unreleased: { stored: Uint8Array; unit: { seq: number; expiresAt: number } }[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The latest `now` a call brought, and performance.now() then: the renewal timer's clock. */
  #lastNow = 0;
  #lastSeenAt = 0;
  #count = 0;
  #now = 0;

  constructor(backend: Backend, algorithm: Algorithm<ConcurrencyPolicy>, policy: ConcurrencyPolicy) {
    this.backend = backend;
    this.table = new PolicyTable(policy.name, algorithm, policy, backend.maxKeys);
    this.#out = stepOutput(1);
    this.#fallbacks = fallbackOf(backend, algorithm as unknown as Algorithm<Policy>, policy);
  }

  get policy(): ConcurrencyPolicy {
    return this.table.policy;
  }

  get fallback(): StoreBinding<'sync'> {
    return this.#fallbacks.binding;
  }

  /** held is how many units this process holds for `key` (tests and diagnostics). */
  held(key: string): number;
  held(sql: Sql, key: Uint8Array): Decision;
  held(a: string | Sql, b?: Uint8Array): number | Decision {
    if (typeof a === 'string') return this.#held.get(keyText(encodeKey(a)))?.units.length ?? 0;
    this.table.algorithm.evaluate(this.policy, Float64Array.of(this.#count), 0, this.#now, Number.MAX_SAFE_INTEGER, this.#out);
    return { allowed: true, limit: this.policy.limit, remaining: this.#out.remaining, retryAfterMs: 0, resetAfterMs: this.#out.resetAfterMs, policy: this.policy };
  }

  /** renewing tells whether the renewal timer runs (it does exactly while leases are held). */
  get renewing(): boolean {
    return this.#timer !== undefined;
  }

  consume(key: string, now: number, cost: number): Decision {
    return this.#acquire(key, now, cost, true);
  }

  peek(key: string, now: number, cost: number): Decision {
    return this.#acquire(key, now, cost, false);
  }

  allow(key: string, now: number, cost: number): boolean {
    return this.#acquire(key, now, cost, true).allowed;
  }

  /** reset deletes every lease of `key` (every process's), in the file and on the fallback, and forgets this process's. */
  reset(key: string): void {
    this.fallback.reset(key);
    const stored = encodeKey(key);
    this.#forget(keyText(stored));
    const done = this.backend.file.transact(true, (sql) => {
      sql.removeLeases.run(this.policy.name, stored);
      this.table.remove(sql, stored);
    });
    if (done instanceof Failure) this.backend.report(info('reset', this.policy.name, done));
  }

  /** refund releases up to `cost` of this process's units of `key`, the latest taken first. */
  refund(key: string, now: number, cost: number): void {
    this.#see(now);
    const held = keyText(encodeKey(key));
    const entry = this.#held.get(held);
    if (entry === undefined) return;
    let fallback = 0;
    for (let i = 0; i < cost && entry.units.length > 0; i++) {
      const unit = entry.units.pop() as Unit;
      if (typeof unit === 'object') this.#unreleased.push({ stored: entry.stored, unit });
      else if (unit === FALLBACK) fallback++;
    }
    if (fallback > 0) this.fallback.refund?.(key, now, fallback);
    if (entry.units.length === 0) this.#forget(held);
    if (this.#unreleased.length === 0) return;
    const done = this.backend.file.transact(true, (sql) => this.#releaseAll(sql));
    if (done instanceof Failure) this.backend.report(info('refund', this.policy.name, done));
  }

  evaluate(sql: Sql, key: Uint8Array, now: number, cost: number): boolean {
    this.#now = now;
    this.table.enter(sql, now);
    const state = this.table.read(sql, key);
    const expired = state === undefined ? 0 : (sql.expiredLeases.get(this.policy.name, key, now)?.['n'] as number);
    // A table full of keys holding leases has no room: a new key is answered as if it held the whole limit.
    this.#count = state === undefined ? (this.table.atCapacity() ? this.policy.limit : 0) : Math.max(0, (state[0] as number) - expired);
    this.table.algorithm.evaluate(this.policy, state === undefined && this.#count === 0 ? undefined : Float64Array.of(this.#count), 0, now, cost, this.#out);
    return this.#out.allowed;
  }

  decision(): Decision {
    return toDecision(this.#out, this.policy);
  }

  commit(sql: Sql, key: Uint8Array, cost: number): void {
    const name = this.policy.name;
    sql.dropExpiredLeases.run(name, key, this.#now);
    this.#releaseAll(sql);
    this.#expireElsewhere(sql);
    this.table.write(sql, key, this.#out.next, this.#now);
    const expiresAt = this.#now + this.backend.leaseTtlMs;
    const units: Unit[] = [];
    for (let i = 0; i < cost; i++) {
      const seq = this.#seq++;
      sql.insertLease.run(name, key, expiresAt, this.#holder, seq);
      units.push({ seq, expiresAt });
    }
    this.#staged = { stored: key, units };
  }

  afterTransaction(committed: boolean): void {
    const staged = this.#staged;
    this.#staged = undefined;
    if (committed && staged !== undefined) this.#record(staged.stored, staged.units);
  }

  /** fellBack records units a composite's fallback admitted, so that their release goes there. */
  fellBack(key: string, cost: number): void {
    this.#record(encodeKey(key), new Array<Unit>(cost).fill(FALLBACK));
  }

  /** renew moves every lease this process holds to a fresh expiry, in one transaction (the timer calls it every leaseTtlMs / 3). */
  renew(now = this.#lastNow + (performance.now() - this.#lastSeenAt)): void {
    const done = this.backend.file.transact(true, (sql) => {
      this.#releaseAll(sql);
      const name = this.policy.name;
      const expiresAt = now + this.backend.leaseTtlMs;
      for (const [key, entry] of this.#held) {
        entry.units = entry.units.filter((unit) => {
          if (typeof unit !== 'object') return true;
          if (Number(sql.renewLease.run(expiresAt, name, entry.stored, unit.expiresAt, this.#holder, unit.seq, now).changes) === 0) return false; // expired: gone
          unit.expiresAt = expiresAt;
          return true;
        });
        if (entry.units.length === 0) this.#forget(key);
      }
    });
    if (done instanceof Failure) this.backend.report(info('renew', this.policy.name, done));
  }

  #acquire(key: string, now: number, cost: number, commit: boolean): Decision {
    this.#see(now);
    const stored = encodeKey(key);
    const decided = this.backend.file.transact(commit, (sql) => {
      if (this.evaluate(sql, stored, now, cost) && commit) this.commit(sql, stored, cost);
      return this.decision();
    });
    this.afterTransaction(!(decided instanceof Failure) && commit);
    if (!(decided instanceof Failure)) return decided;
    this.backend.report(info(commit ? 'consume' : 'peek', this.policy.name, decided));
    const decision = decideWithout(this.backend, this.policy, this.fallback, key, now, cost, commit);
    if (commit && decision.allowed) this.#record(stored, new Array<Unit>(cost).fill(decision.failure === 'open' ? OPEN : FALLBACK));
    return decision;
  }

  /** #releaseAll removes the released lease rows and takes them off their keys' counts. */
  #releaseAll(sql: Sql): void {
    const name = this.policy.name;
    for (const { stored, unit } of this.#unreleased.splice(0)) {
      if (Number(sql.removeLease.run(name, stored, unit.expiresAt, this.#holder, unit.seq).changes) > 0) this.#uncount(sql, name, stored, 1);
    }
  }

  /** #expireElsewhere deletes a few expired leases of any key (crashed processes') and takes them off their counts. */
  #expireElsewhere(sql: Sql): void {
    for (const row of sql.expireLeases.all(this.#now, EXPIRED_BATCH)) this.#uncount(sql, row['policy'] as string, row['key'] as Uint8Array, 1);
  }

  /** #uncount lowers a key's count by `units` (of any concurrency policy): the row goes at zero. */
  #uncount(sql: Sql, name: string, stored: Uint8Array, units: number): void {
    const row = sql.state.get(name, stored);
    if (row === undefined) return;
    const left = (decodeState(row['state'] as Uint8Array)[0] as number) - units;
    if (left > 0) sql.update.run(encodeState(Float64Array.of(left)), Infinity, left, name, stored);
    else if (Number(sql.remove.run(name, stored).changes) > 0) sql.addKeys.run(name, -1);
  }

  #record(stored: Uint8Array, units: readonly Unit[]): void {
    const key = keyText(stored);
    const entry = this.#held.get(key);
    if (entry === undefined) this.#held.set(key, { stored, units: [...units] });
    else entry.units.push(...units);
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.renew(), Math.max(1, Math.floor(this.backend.leaseTtlMs / 3)));
    this.#timer.unref();
  }

  #forget(key: string): void {
    this.#held.delete(key);
    if (this.#held.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #see(now: number): void {
    this.#lastNow = now;
    this.#lastSeenAt = performance.now();
  }
}

/** keyText is a stored key as a Map key: its bytes, one character each. */
function keyText(stored: Uint8Array): string {
  return Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('latin1');
}
