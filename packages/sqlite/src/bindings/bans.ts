/**
 * SqliteBans: the store's side of core's Bans contract (ban.ts): a binding that decides with the ban
 * in front of the algorithm, in the same transaction, so a decision is still one transaction. A ban is
 * a row of its own policy, `<policy name>#ban` (no policy name can contain '#'), holding the instant it
 * ends and the cost of the denial that started it, with that end as its expiry: bounded by maxKeys
 * like every policy (the bans nearest their end are evicted first, as on the memory store), and
 * deleted once ended like any expired row.
 *
 * As on the memory store: a banned key is denied with the time left, changing nothing; outside a ban
 * the algorithm decides, and its first denial that waiting could cure starts a ban of banMs; a peek
 * starts nothing; a refund gives back to the algorithm and lifts the ban when the algorithm now admits
 * the cost that started it; a reset lifts the ban and empties the key. When the file cannot decide,
 * the failure policy decides without the ban (the fallback does not know the file's bans).
 */
import { type Algorithm, type Decision, type Policy, type StoreBinding } from '@ratekeeper/core';
import { bannedDecision } from '@ratekeeper/core/store';
import { info } from './backend.js';
import type { SqliteBinding } from './binding.js';
import { Failure } from '../file/failure.js';
import { encodeKey } from '../rows/keys.js';
import type { Sql } from '../sql/sql.js';
import { PolicyTable } from '../rows/table.js';

/** A ban's row: [until, cost]; empty at `until`, every ban ranked alike for eviction (then by its end). */
const BAN: Algorithm = {
  name: 'fixed-window', // unused: a ban is never evaluated as a step
  stateSize: 2,
  evaluate() {
    throw new TypeError('SqliteStore: a ban is not a step');
  },
  emptyAt: (_policy, state, offset) => state[offset] as number,
  fill: () => 1,
};

export class SqliteBans implements StoreBinding<'sync'> {
  readonly #inner: SqliteBinding;
  readonly #bans: PolicyTable;
  readonly #banMs: number;
  readonly #policy: Policy;
  /** A peek saw an ended ban (dropped after its read transaction). */
  #endedSeen = false;

  constructor(inner: SqliteBinding, banMs: number) {
    this.#inner = inner;
    this.#policy = inner.policy;
    this.#banMs = banMs;
    this.#bans = new PolicyTable(`${inner.policy.name}#ban`, BAN, inner.policy, inner.backend.maxKeys);
  }

  consume(key: string, now: number, cost: number): Decision {
    return this.#decide(key, now, cost, true);
  }

  peek(key: string, now: number, cost: number): Decision {
    return this.#decide(key, now, cost, false);
  }

  allow(key: string, now: number, cost: number): boolean {
    return this.#decide(key, now, cost, true).allowed;
  }

  reset(key: string): void {
    this.#inner.fallback.reset(key);
    const stored = encodeKey(key);
    const done = this.#inner.backend.file.transact(true, (sql) => {
      this.#bans.remove(sql, stored);
      this.#inner.resetIn(sql, stored);
    });
    if (done instanceof Failure) this.#inner.backend.report(info('reset', this.#policy.name, done));
  }

  /** refund gives back to the algorithm, then lifts a running ban the algorithm now admits its cost under. */
  refund(key: string, now: number, cost: number): void {
    const stored = encodeKey(key);
    const done = this.#inner.backend.file.transact(true, (sql) => {
      this.#inner.refundIn(sql, stored, now, cost);
      const ban = this.#bans.read(sql, stored);
      if (ban === undefined) return;
      // An ended ban is dropped when seen, as the memory store drops it: a clock that then steps back finds none.
      if (!(now < (ban[0] as number))) return this.#bans.remove(sql, stored);
      if (this.#inner.evaluate(sql, stored, now, ban[1] as number)) this.#bans.remove(sql, stored);
    });
    if (!(done instanceof Failure)) return;
    this.#inner.backend.report(info('refund', this.#policy.name, done));
    this.#inner.fallback.refund?.(key, now, cost);
  }

  #decide(key: string, now: number, cost: number, commit: boolean): Decision {
    const stored = encodeKey(key);
    this.#endedSeen = false;
    const decided = this.#inner.backend.file.transact(commit, (sql) => this.#inTransaction(sql, stored, now, cost, commit));
    if (this.#endedSeen) {
      this.#endedSeen = false;
      this.#inner.backend.file.transact(true, (sql) => {
        const ban = this.#bans.read(sql, stored);
        if (ban !== undefined && !(now < (ban[0] as number))) this.#bans.remove(sql, stored);
      });
    }
    return decided instanceof Failure ? this.#inner.failed(commit ? 'consume' : 'peek', decided, key, now, cost, commit) : decided;
  }

  #inTransaction(sql: Sql, key: Uint8Array, now: number, cost: number, commit: boolean): Decision {
    const ban = this.#bans.read(sql, key);
    if (ban !== undefined && now < (ban[0] as number)) return bannedDecision(this.#policy, (ban[0] as number) - now);
    // An ended ban is dropped when seen, as the memory store drops it (a peek reads only: it has the
    // ban dropped in a write transaction of its own, after).
    if (ban !== undefined) {
      if (commit) this.#bans.remove(sql, key);
      else this.#endedSeen = true;
    }
    const allowed = this.#inner.evaluate(sql, key, now, cost);
    const decision = this.#inner.decision();
    if (allowed) {
      if (commit) this.#inner.commit(sql, key);
      return decision;
    }
    if (decision.retryAfterMs === Infinity) return decision;
    if (commit) {
      // The ban table's key count and swept instant, as every process left them (its maxKeys bound is the file's).
      this.#bans.enter(sql, now);
      this.#bans.write(sql, key, Float64Array.of(now + this.#banMs, cost), now);
    }
    return bannedDecision(this.#policy, this.#banMs);
  }
}
