/**
 * PostgresDialect: the kit's SqlDialect (core's sql-transactor.ts) for PostgreSQL: a transaction in two
 * round trips (lockSql: BEGIN, a bounded lock wait and the locking upsert; commitSql: the write that
 * checks the deadline, then COMMIT), its fate by txid_status, and what an error means.
 *
 * Errors: a PostgreSQL error carries a SQLSTATE (five characters with a digit): the server answered.
 * 40P01 (deadlock), 40001 (serialization) and 55P03 (the lock wait bound, lock_timeout) rolled the
 * transaction back: run it again. 08 (connection exception) and 57P01-57P03 (the backend terminated,
 * the server shutting down or starting) ended the connection. Anything without a SQLSTATE is the
 * connection failing, except a connection that could not be made at all (refused, no route: core's
 * `unreachable`) and a client that can serve no more (pg's "Cannot use a pool after calling end",
 * postgres.js's CONNECTION_ENDED): those are refused at once. The server is working when it sent the
 * error itself, unless it was refusing to serve (57P02, 57P03, class 53, class 08 from a pooler).
 */
import {
  type Decided,
  Expired,
  type Locked,
  type Part,
  type RowRef,
  type SqlDialect,
  type SqlErrorKind,
  type SqlSession,
  type Write,
  fixedWindow,
  slidingWindow,
  tokenBucket,
  unreachable,
} from '@ratekeeper/core/store';
import type { Db, Row } from './client.js';
import { ROLLBACK, TIME, commitSql, createSql, decideSql, lockSql, parseState, peekSql, statusSql } from './sql.js';

const SQLSTATE = /^(?=.*[0-9])[0-9A-Z]{5}$/;

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SQLSTATE.test(code) ? code : undefined;
}

/** classify tells what an error means (see above). */
export function classify(error: unknown): SqlErrorKind {
  const state = sqlState(error);
  if (state === '40P01' || state === '40001' || state === '55P03') return 'retry';
  if (state !== undefined) return state.startsWith('08') || /^57P0[1-3]$/.test(state) ? 'lost' : 'reply';
  if (error instanceof AnswerError) return 'reply';
  const e = error as { code?: unknown; message?: unknown } | null;
  if (unreachable(error) || e?.code === 'CONNECTION_ENDED' || /after calling end on the pool/.test(String(e?.message))) return 'refused';
  return 'lost';
}

/** working tells an error a working database sent (see above). */
export function working(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && state !== '57P02' && state !== '57P03' && !state.startsWith('53') && !state.startsWith('08');
}

/** lost tells an error after which a connection must not be reused. */
export function lost(error: unknown): boolean {
  const kind = classify(error);
  return kind === 'lost' || kind === 'refused';
}

/** AnswerError: the database answered something this store cannot read (a reply failure, not a connection's). */
class AnswerError extends Error {}

function hexBuffer(hex: string): Uint8Array {
  return Buffer.from(hex, 'hex');
}

function numberOf(row: Row | undefined, column: string): number {
  const value = Number(row?.[column]);
  if (!Number.isFinite(value)) throw new AnswerError(`PostgresStore: an answer without ${column}`);
  return value;
}

/** The algorithms the table's decide function runs (./sql.ts), by core's own step: its code and its two parameters. */
const PORTED = new Map<unknown, (part: Part) => readonly [number, number, number]>([
  [tokenBucket, (p) => [1, (p.policy as { intervalMs: number }).intervalMs, (p.policy as { capacity: number }).capacity]],
  [fixedWindow, (p) => [2, p.policy.windowMs, p.policy.limit]],
  [slidingWindow, (p) => [3, p.policy.windowMs, p.policy.limit]],
]);

export class PostgresDialect implements SqlDialect {
  readonly #db: Db;
  readonly #table: string;
  readonly #create: string | undefined;
  readonly #decide: { readonly name: string; readonly text: string };
  readonly #peek: { readonly name: string; readonly text: string };
  readonly #waitMs: number;
  #ready: Promise<void> | undefined;

  constructor(db: Db, table: string, create: boolean, unlogged: boolean, lockWaitMs: number) {
    this.#db = db;
    this.#table = table;
    this.#create = create ? createSql(table, unlogged) : undefined;
    this.#decide = { name: `rk_decide_${table}`, text: decideSql(table) };
    this.#peek = { name: `rk_peek_${table}`, text: peekSql(table) };
    this.#waitMs = Math.max(1, Math.floor(lockWaitMs));
  }

  decides(part: Part): boolean {
    return PORTED.has(part.algorithm);
  }

  /** decide runs a plain call through the table's decide function (./sql.ts): one round trip. */
  async decide(part: Part, cost: number, commit: boolean, clientAt: number | undefined, deadline: number, token: number): Promise<Decided | Expired> {
    const [alg, p1, p2] = (PORTED.get(part.algorithm) as (part: Part) => readonly [number, number, number])(part);
    const row = commit
      ? (await this.#db.call(this.#decide.name, this.#decide.text, [hexBuffer(part.id), alg, p1, p2, cost, clientAt ?? null, deadline, String(token), this.#waitMs]))[0]
      : (await this.#db.call(this.#peek.name, this.#peek.text, [hexBuffer(part.id), clientAt ?? null, deadline]))[0];
    const at = numberOf(row, 'at');
    if (row?.['expired'] === true || row?.['expired'] === 't') return new Expired(at);
    const replayed = row?.['replayed'] === true || row?.['replayed'] === 't';
    return { state: parseState(row?.['s'] as string | null), at, written: parseState(row?.['w'] as string | null), ...(replayed ? { replayed } : {}) };
  }

  readonly classify = classify;
  readonly working = working;

  /**
   * ready creates the tables once, in a transaction on a connection of its own (postgres.js allows BEGIN
   * on no other), made again while its connection dies; a failed creation is tried again by the next call.
   */
  ready(): Promise<void> {
    const create = this.#create;
    if (create === undefined) return Promise.resolve();
    this.#ready ??= this.#db
      .again(async () => {
        const session = await this.#db.session();
        try {
          await session.query(create);
          session.release(false);
        } catch (error) {
          session.release(true);
          throw error;
        }
      })
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }

  ping(): Promise<unknown> {
    return this.#db.query('SELECT 1');
  }

  async now(): Promise<number> {
    return numberOf((await this.#db.query(TIME))[0], 'now');
  }

  async fate(txid: string): Promise<'committed' | 'aborted' | 'unknown'> {
    const status = (await this.#db.query(statusSql(txid)))[0]?.['status'];
    return status === 'committed' || status === 'aborted' ? status : 'unknown';
  }

  async session(): Promise<SqlSession> {
    const session = await this.#db.session();
    const table = this.#table;
    return {
      async lock(refs: readonly RowRef[], lockWaitMs: number): Promise<Locked> {
        const answer = await session.query(lockSql(table, refs, lockWaitMs));
        const states = new Map<string, Float64Array | undefined>();
        let at = Number.NEGATIVE_INFINITY;
        for (const row of answer) {
          states.set(String(row['k']), parseState(row['s'] as string | null));
          at = Math.max(at, numberOf(row, 'now'));
        }
        if (states.size !== refs.length) throw new AnswerError('PostgresStore: a locked row is missing from the answer');
        return { states, at, fate: String(answer[0]?.['x']) };
      },
      async commit(writes: readonly Write[], deadline: number) {
        const written = (await session.query(commitSql(table, writes, deadline)))[0];
        return { committed: numberOf(written, 'n') === writes.length, at: numberOf(written, 'now') };
      },
      rollback: async () => void (await session.query(ROLLBACK)),
      release: (broken: boolean) => session.release(broken),
    };
  }
}
