/**
 * One batch's transaction: the calls in flight together, decided in one InnoDB transaction on one
 * pooled connection, as one Request of core's Remote (which bounds it and judges the server by its
 * silence). Round trips, in order:
 *
 * 1. START TRANSACTION.
 * 2. Lock every (policy, key) row of the batch, in one global order (policy name, then key bytes), by
 *    an INSERT … ON DUPLICATE KEY UPDATE that creates the missing rows empty: each row's exclusive
 *    lock is taken at once, in that order, by every process, so batches queue on a hot key and never
 *    deadlock with each other.
 * 3. Read the rows and the server's clock (NOW(6)), after the locks: each transaction on a key sees
 *    the state its predecessor committed and a later instant. With `time: 'server'` every call of the
 *    batch is decided at that instant; a batch that starts at or after its deadline does nothing and
 *    answers 'expired' (below).
 * 4. Run the calls in arrival order with core's steps (../rows/steps.ts). A reserve, a cancel and a reset
 *    lock their members' booking ledger rows (../rows/ledger.ts) with their states, in the same order.
 * 5. Nothing changed: ROLLBACK (which also drops the rows created to be locked). Else write the
 *    changed rows back in one statement and call the commit procedure with the deadline.
 *
 * Never decided twice (core's ServerClock contract): Remote decides a call locally only once the
 * server's clock has certainly passed the deadline the attempt carried. The commit procedure reads the
 * server's clock and commits only before that deadline, in one statement; otherwise it rolls back and
 * answers 'expired' (-its instant). So a transaction whose COMMIT reaches a server that was stopped,
 * or that waited on a lock held by another session, past the deadline commits nothing.
 *
 * Connections lost or killed (KILL CONNECTION, a restart, a network reset): before the commit was sent
 * nothing was committed (InnoDB rolls back a transaction whose connection ends), so the batch is run
 * again on another connection. While the commit was on its way, the outcome is unknown: the procedure
 * records the batch's random id in `${table}_commits` in the same transaction, and a locking read of
 * it (which waits for a transaction still ending) tells: found, the batch's decisions stand; not found,
 * nothing was committed and the batch is run again. Only when that read fails too does the batch fail
 * (its calls are then decided by the failure policy), and that is the one case in which a request may
 * be counted both by the database and by a fallback: the connection lost during the commit and the
 * server unreachable right after.
 *
 * Deadlocks and lock wait timeouts (with the sweep or another application's transactions) are retried
 * the same way. A connection that failed inside a transaction is destroyed, never returned to the pool.
 */
import { randomInt } from 'node:crypto';
import type { Decision } from '@ratekeeper/core';
import { Failure, type Request, leaseExpiry, unreachable } from '@ratekeeper/core/store';
import type { MySqlConnection, MySqlPool } from './client.js';
import { decodeState, encodeState, storedInstant } from '../rows/codec.js';
import type { Dialect } from '../sql/dialect.js';
import { type Call, type Member, Steps, rowId } from '../rows/steps.js';

/** What a batch answers: its calls' decisions, or 'expired' with the server's instant. */
export type BatchReply = { readonly decisions: readonly (readonly Decision[])[]; readonly at: number } | { readonly expiredAt: number };

/** What a transaction needs of its store. */
export interface TransactionContext {
  readonly pool: MySqlPool;
  readonly sql: Dialect;
  readonly clientTime: boolean;
  /** ready makes sure the schema exists (once per store). */
  ready(): Promise<void>;
  /** committed runs after a batch committed, with the instant it decided at (for the sweep). */
  committed(at: number): void;
  /** The latest instant read from the server's clock (0: none yet). */
  readonly clock: { serverMs: number };
}

/**
 * A batch that committed nothing (a deadlock, a lost connection) runs again at once for up to
 * RETRY_WINDOW_MS, each time on a new connection (a server that is down refuses it, or answers
 * nothing, and Remote judges that); after that it answers 'expired', and Remote sends it again.
 */
const RETRY_WINDOW_MS = 50;
/** MAX_LOOKUPS bounds the connections tried to look up a commit whose reply was lost. */
const MAX_LOOKUPS = 10;

/** Server errors that roll a transaction back and are answered by running it again: deadlock, lock wait timeout. */
const RETRIED_ERRNOS: ReadonlySet<number> = new Set([1213, 1205]);
/** Server errors that mean the connection was killed or the server is going away. */
const LOST_ERRNOS: ReadonlySet<number> = new Set([1053, 1317, 1927, 2006, 2013, 4031]);

interface Row {
  readonly id: string;
  readonly member: Member;
  readonly key: Buffer;
}

/** isLost tells whether `error` means the connection is gone (rather than a statement refused). */
export function isLost(error: unknown): boolean {
  const e = error as { fatal?: unknown; errno?: unknown; code?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  if (e.fatal === true) return true;
  return typeof e.errno === 'number' && LOST_ERRNOS.has(e.errno);
}

/** failureOf classifies a rejected batch: a server's error reply, or a failed connection (which trips the breaker). */
export function failureOf(error: unknown): Failure {
  const e = error as { errno?: unknown; sqlState?: unknown } | null;
  const reply = !isLost(error) && typeof e?.errno === 'number' && typeof e.sqlState === 'string';
  return new Failure(reply ? 'reply' : 'connection', error);
}

/** expiredAt reads a batch's 'expired' answer. */
export function expiredAt(reply: unknown): number | undefined {
  const r = reply as { expiredAt?: unknown } | null;
  return typeof r?.expiredAt === 'number' ? r.expiredAt : undefined;
}

export class BatchRequest implements Request {
  readonly deadlined = true;
  readonly #context: TransactionContext;
  readonly #calls: readonly Call[];
  readonly #rows: readonly Row[];

  constructor(context: TransactionContext, calls: readonly Call[]) {
    this.#context = context;
    this.#calls = calls;
    const rows = new Map<string, Row>();
    for (const call of calls) {
      let members = call.ban === undefined ? call.members : [...call.members, call.ban.member];
      // A reserve, a cancel and a reset read or write the members' booking ledgers (../rows/ledger.ts) too.
      if (call.kind === 'reserve' || call.kind === 'cancel' || call.kind === 'reset') members = [...members, ...call.members.flatMap((m) => m.bookings ?? [])];
      for (const member of members) {
        const id = rowId(member.policy, call.key);
        if (!rows.has(id)) rows.set(id, { id, member, key: call.key });
      }
    }
    this.#rows = [...rows.values()].sort(byRow);
  }

  async send(deadline: number): Promise<BatchReply> {
    const { pool, sql } = this.#context;
    await this.#context.ready();
    if (deadline === 0) {
      const [rows] = await pool.query(sql.now);
      const now = Number((rows as { now_ms: unknown }[])[0]?.now_ms);
      if (now > this.#context.clock.serverMs) this.#context.clock.serverMs = now;
      return { expiredAt: now };
    }
    this.#found = false;
    const startedAt = performance.now();
    for (;;) {
      let connection: MySqlConnection;
      try {
        connection = await pool.getConnection();
      } catch (error) {
        // A connection that died while being made (killed during its handshake, reset by a proxy)
        // committed nothing: made again as a failed batch runs again (below). A server that refuses
        // connections fails the batch.
        if (!isLost(error) || unreachable(error)) throw error;
        const known = this.#context.clock.serverMs;
        if (performance.now() - startedAt >= RETRY_WINDOW_MS && known > 0) return { expiredAt: known };
        continue;
      }
      const batch = randomInt(2 ** 47);
      let committing = false;
      try {
        const reply = await this.#transact(connection, deadline, batch, () => {
          committing = true;
        });
        connection.release();
        return reply;
      } catch (error) {
        connection.destroy();
        const again = await this.#again(error, committing, batch);
        if (this.#found) {
          const reply = this.#lastReply as { decisions: readonly (readonly Decision[])[]; at: number };
          this.#context.committed(reply.at);
          return reply;
        }
        if (!again) throw error;
        // Nothing was committed. Run again at once for a while; then answer 'expired' (with the latest
        // instant read from the server, a valid lower bound of its clock), so that Remote hears a
        // server that keeps answering and sends the batch again with a fresh deadline.
        const known = this.#context.clock.serverMs;
        if (performance.now() - startedAt >= RETRY_WINDOW_MS && known > 0) return { expiredAt: known };
      }
    }
  }

  /** found: the last commit whose reply was lost did commit. */
  #found = false;

  /** again tells whether nothing was committed and the batch may run again after `error`; sets #found for a commit that went through. */
  async #again(error: unknown, committing: boolean, batch: number): Promise<boolean> {
    if (!isLost(error)) return RETRIED_ERRNOS.has((error as { errno?: number } | null)?.errno ?? 0);
    if (!committing) return true;
    const found = await this.#committed(batch);
    if (found === undefined) return false;
    this.#found = found;
    return !found;
  }

  /** The reply computed before the commit was sent, kept for a commit found after its connection was lost. */
  #lastReply: BatchReply | undefined;

  async #transact(connection: MySqlConnection, deadline: number, batch: number, committing: () => void): Promise<BatchReply> {
    const { sql, clientTime } = this.#context;
    const rows = this.#rows;
    await connection.query('START TRANSACTION');
    const keys: unknown[] = [];
    for (const row of rows) keys.push(row.member.policy.name, row.key);
    await connection.query(sql.lock(rows.length), keys);
    const [read] = await connection.query(sql.read(rows.length), keys);
    const found = read as { policy: string; k: Buffer; state: Buffer; now_ms: unknown }[];
    const now = Number(found[0]?.now_ms);
    if (found.length !== rows.length || !Number.isFinite(now)) throw new UnexpectedReply();
    if (now > this.#context.clock.serverMs) this.#context.clock.serverMs = now;
    if (!(now < deadline)) {
      await connection.query('ROLLBACK');
      return { expiredAt: now };
    }
    const steps = new Steps();
    const byId = new Map<string, Float64Array | undefined>();
    for (const r of found) byId.set(`${r.policy}\u0000${Buffer.from(r.k).toString('latin1')}`, decodeState(r.state));
    for (const row of rows) steps.states.set(row.id, byId.get(row.id));
    // The latest instant decided at, on the clock the table's instants are on (for the sweep).
    let latest = clientTime ? Number.NEGATIVE_INFINITY : now;
    const decisions = this.#calls.map((call) => {
      const at = clientTime ? call.now : now;
      if (at > latest) latest = at;
      return steps.run(call, at);
    });
    if (steps.dirty.size === 0) {
      await connection.query('ROLLBACK');
      return { decisions, at: latest };
    }
    const values: unknown[] = [];
    let written = 0;
    for (const row of rows) {
      if (!steps.dirty.has(row.id)) continue;
      const state = steps.states.get(row.id);
      const { policy, algorithm, leases } = row.member;
      const empty = state === undefined ? 0 : leases === true ? leaseExpiry(state) : algorithm.emptyAt(policy, state, 0);
      values.push(policy.name, row.key, state === undefined ? Buffer.alloc(0) : encodeState(state), storedInstant(empty));
      written++;
    }
    await connection.query(sql.write(written), values);
    const reply = { decisions, at: latest };
    this.#lastReply = reply;
    committing();
    const [sets] = await connection.query(sql.commit, [deadline, batch]);
    const at = Number((sets as { at_ms: unknown }[][])[0]?.[0]?.at_ms);
    if (!(at > 0)) return { expiredAt: -at };
    this.#context.committed(latest);
    return reply;
  }

  /**
   * committed tells whether batch `id` committed (a locking read: it waits for its transaction to end);
   * undefined when it cannot tell. A pooled connection killed while idle fails at once: it is tried
   * on others, as long as connections keep being made.
   */
  async #committed(id: number): Promise<boolean | undefined> {
    for (let tries = 1; tries <= MAX_LOOKUPS; tries++) {
      let connection: MySqlConnection;
      try {
        connection = await this.#context.pool.getConnection();
      } catch {
        return undefined;
      }
      try {
        const [rows] = await connection.query(this.#context.sql.committed, [id]);
        connection.release();
        return (rows as unknown[]).length > 0;
      } catch (error) {
        connection.destroy();
        if (!isLost(error)) return undefined;
      }
    }
    return undefined;
  }
}

/** UnexpectedReply: the server answered something this store cannot read (a row it locked missing); a reply failure, not a connection's. */
class UnexpectedReply extends Error {
  readonly errno = -1;
  readonly sqlState = 'HY000';
  constructor() {
    super('MySqlStore: the locked rows came back incomplete');
  }
}

function byRow(a: Row, b: Row): number {
  const names = a.member.policy.name < b.member.policy.name ? -1 : a.member.policy.name > b.member.policy.name ? 1 : 0;
  return names !== 0 ? names : Buffer.compare(a.key, b.key);
}
