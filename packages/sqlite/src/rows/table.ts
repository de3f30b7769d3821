/**
 * PolicyTable: one policy's rows in rk_state, read and written only inside a transaction (../file/file.ts).
 *
 * Bounded like the memory store: at most `maxKeys` keys per policy name (counted in rk_policies, never
 * by counting rows). State that has returned to empty decides exactly like a missing row, so it is
 * deleted, without a scan: each insert of a new key first deletes up to EXPIRED_BATCH rows whose
 * expires_at is EXPIRED_GRACE_MS past, taken from the start of the (policy, expires_at) index. Rows
 * therefore never pile up faster than keys arrive, and a key that is written again is never touched.
 * When the policy is at `maxKeys`, an insert deletes one row empty by now (among the EMPTY_CANDIDATES
 * rows the expiry index puts first, each decoded, since expires_at may lie past the empty instant) or
 * else evicts the key with the most room, by the (policy, fill, expires_at) index: the lowest fill
 * the key held when it was last written, then the nearest expiry (ties in key order). A key's fill
 * only falls between its writes, and a full state is stored with a fill of at least 1, so a key
 * blocked now ranks above a flood of fresh keys holding one request each, for every algorithm. (The
 * memory store ranks by the fill at the sweep, and evicts 1/32 of its table at once; here each insert
 * evicts one.)
 *
 * The two indexed columns are kept loosely, so that most writes change the state alone and touch no
 * index (moving a row in two indexes costs a hot key's decision half its time): a row's expires_at is
 * never before the instant its state is empty (nothing live is ever deleted as expired) and at most
 * max(1 s, 25 % of the time left) after it (a key's lifetime is a memory bound, not a decision); a row
 * is written with expires_at half that slack after its empty instant, and rewritten when a new state
 * no longer fits: a window's row each time the time left halves, a busy bucket's every eighth of its
 * time to refill (at least every half second). Its fill is within 1/16 of the limit of the state's
 * (at least 1 for a full state): keys that far apart are evicted in the memory store's order, closer
 * ones in either. Below a limit of 16 each admission moves the fill by more than 1/16 and rewrites
 * both columns: the saving is for larger limits, and for writes that leave the fill in its band.
 *
 * A deleted empty state is only equivalent to no state at instants after it became empty. So each
 * policy keeps `swept_at`, the latest instant at which a deleted state was empty, and a decision at an
 * earlier instant (a clock that stepped back more than the grace, or another process's clock behind
 * this one's) is taken at swept_at, its waits shifted to stay honest for the caller (as the memory
 * store does after a sweep). With EXPIRED_GRACE_MS, a clock stepping back less than a minute never
 * meets it: decisions are then exactly the memory store's.
 */
import type { Algorithm, Policy } from '@ratekeeper/core';
import { decodeState, encodeState } from './codec.js';
import type { Sql } from '../sql/sql.js';

/**
 * A row's expires_at is never before its state's empty instant and at most max(SLACK_FLOOR_MS,
 * SLACK_SHARE of the time left) after it; its fill is within FILL_STEP of the state's fill when written.
 */
const SLACK_FLOOR_MS = 1_000;
const SLACK_SHARE = 0.25;
const FILL_STEP = 1 / 16;

/** How many rows from the start of the expiry index a full table looks through for one empty by now. */
const EMPTY_CANDIDATES = 8;

/** How long a state stays empty before a new key's insert deletes it. */
export const EXPIRED_GRACE_MS = 60_000;
/** How many such rows one insert deletes at most. */
const EXPIRED_BATCH = 2;

export class PolicyTable<P extends Policy = Policy> {
  readonly name: string;
  readonly algorithm: Algorithm<P>;
  readonly policy: P;
  readonly #maxKeys: number;
  /** Read by `enter`, valid until the transaction ends. */
  #keys = 0;
  #sweptAt = -Infinity;
  /** Live keys this process evicted to respect maxKeys. */
  evictions = 0;

  constructor(name: string, algorithm: Algorithm<P>, policy: P, maxKeys: number) {
    this.name = name;
    this.algorithm = algorithm;
    this.policy = policy;
    this.#maxKeys = maxKeys;
  }

  /** enter reads the policy's row (none yet: no key, never swept) and answers the instant to decide `now` at. */
  enter(sql: Sql, now: number): number {
    const row = sql.policy.get(this.name) as { keys: number; swept_at: number } | undefined;
    this.#keys = row === undefined ? 0 : row.keys;
    this.#sweptAt = row === undefined ? -Infinity : row.swept_at;
    return now < this.#sweptAt ? this.#sweptAt : now;
  }

  /** atCapacity tells whether the policy holds maxKeys keys (as read by `enter`). */
  atCapacity(): boolean {
    return this.#keys >= this.#maxKeys;
  }

  /** full tells whether a new key would exceed maxKeys (after deleting what has expired by `at`). */
  full(sql: Sql, at: number): boolean {
    if (this.#keys < this.#maxKeys) return false;
    return !this.#emptyOne(sql, at);
  }

  read(sql: Sql, key: Uint8Array): Float64Array | undefined {
    const row = sql.state.get(this.name, key);
    return row === undefined ? undefined : decodeState(row['state'] as Uint8Array);
  }

  /**
   * write stores `state`, decided at `at`, for `key`, making room for a new key first. The indexed
   * columns are rewritten only when they no longer hold (see above): most writes change the state alone.
   */
  write(sql: Sql, key: Uint8Array, state: Float64Array, at: number): void {
    const emptyAt = this.algorithm.emptyAt(this.policy, state, 0);
    const fill = this.algorithm.fill(this.policy, state, 0, at);
    const bytes = encodeState(state);
    const slack = Math.max(SLACK_FLOOR_MS, SLACK_SHARE * (emptyAt - at));
    // A full state keeps a fill of at least 1: a blocked key never ranks below one (see above).
    const least = fill >= 1 ? 1 : fill - FILL_STEP;
    if (Number(sql.updateState.run(bytes, this.name, key, emptyAt, emptyAt + slack, least, fill + FILL_STEP).changes) > 0) return;
    const expiresAt = emptyAt + slack / 2;
    if (Number(sql.update.run(bytes, expiresAt, fill, this.name, key).changes) > 0) return;
    this.#makeRoom(sql, at);
    sql.insert.run(this.name, key, bytes, expiresAt, fill);
    this.#count(sql, 1);
  }

  /** remove deletes `key`'s row. */
  remove(sql: Sql, key: Uint8Array): void {
    if (Number(sql.remove.run(this.name, key).changes) > 0) this.#count(sql, -1);
  }

  #makeRoom(sql: Sql, at: number): void {
    this.#expire(sql, at - EXPIRED_GRACE_MS, EXPIRED_BATCH);
    if (this.#keys < this.#maxKeys || this.#emptyOne(sql, at)) return;
    // A pinned key (leases) is never evicted: its caller denies a new key when the table is full.
    if (this.algorithm.pinned === true) return;
    if (Number(sql.evict.run(this.name, this.name).changes) === 0) return;
    this.#count(sql, -1);
    this.evictions++;
  }

  /**
   * #emptyOne deletes a row whose state is empty by `at`, if one is among the EMPTY_CANDIDATES rows the
   * expiry index puts first (a row's expires_at may lie past its empty instant, so each is decoded), and
   * moves swept_at to its empty instant.
   */
  #emptyOne(sql: Sql, at: number): boolean {
    for (const row of sql.soonest.all(this.name, EMPTY_CANDIDATES)) {
      const stored = row['expires_at'] as number;
      const emptyAt = stored <= at ? stored : this.algorithm.emptyAt(this.policy, decodeState(row['state'] as Uint8Array), 0);
      if (emptyAt > at) continue;
      sql.remove.run(this.name, row['key'] as Uint8Array);
      sql.sweptAt.run(this.name, emptyAt);
      if (emptyAt > this.#sweptAt) this.#sweptAt = emptyAt;
      this.#count(sql, -1);
      return true;
    }
    return false;
  }

  /** #expire deletes up to `limit` rows empty at or before `before`, and moves swept_at past them. */
  #expire(sql: Sql, before: number, limit: number): number {
    const rows = sql.expire.all(this.name, this.name, before, limit);
    if (rows.length === 0) return 0;
    let latest = -Infinity;
    for (const row of rows) latest = Math.max(latest, row['expires_at'] as number);
    sql.sweptAt.run(this.name, latest);
    if (latest > this.#sweptAt) this.#sweptAt = latest;
    this.#count(sql, -rows.length);
    return rows.length;
  }

  #count(sql: Sql, n: number): void {
    sql.addKeys.run(this.name, n);
    this.#keys += n;
  }
}
