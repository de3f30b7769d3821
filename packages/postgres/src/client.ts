/**
 * The client, duck-typed: a `pg` Pool (node-postgres) or a postgres.js `sql`, and nothing of either
 * library imported (both stay optional peer dependencies). The store needs two things of it:
 * `query(text)`, one round trip of plain text on any connection answering the rows of every statement
 * in order, and `session()`, one connection held for a transaction, given back with `release(broken)`
 * (a broken one is destroyed, never reused: it may still hold its transaction). Values are read as text.
 *
 * A plain query (the clock, a transaction's fate, a beat, a sweep, the schema) whose connection dies is
 * sent again on another for up to QUERY_RERUN_MS: a connection killed by an administrator or a pooler is
 * not the database failing; what the database said while working is told to `answered`. One that
 * refuses connections fails at once.
 *
 * A client that cannot serve is refused at construction: a pg Client (one connection, which a store
 * would hold across transactions) and a pg Pool already ended. A client ended later fails each call at
 * once ('refused': ./dialect.ts), as a database that refuses connections does: pg's pool refuses
 * itself; postgres.js's `reserve()` does not (it connects again, or waits on a connection being
 * destroyed), so the store wraps that sql's `end` to learn when it was called.
 */
import { unreachable } from '@ratekeeper/core/store';

export type Row = Readonly<Record<string, unknown>>;

export interface Session {
  query(text: string): Promise<Row[]>;
  release(broken: boolean): void;
}

export interface Db {
  query(text: string): Promise<Row[]>;
  /** call runs one prepared statement (named `name`: parsed once per connection) with `values`. */
  call(name: string, text: string, values: readonly unknown[]): Promise<Row[]>;
  session(): Promise<Session>;
  /** again runs `work` (harmless to run twice) again while its connection dies, as `query` runs its text. */
  again<T>(work: () => Promise<T>): Promise<T>;
}

interface PgResult {
  readonly rows: Row[];
}
interface PgClient {
  query(text: string | { name: string; text: string; values: readonly unknown[] }): Promise<PgResult | PgResult[]>;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
interface PgPool {
  connect(): Promise<PgClient>;
  query(text: string): unknown;
  on?(event: 'acquire', listener: (client: PgClient) => void): unknown;
  readonly ending?: boolean;
  readonly ended?: boolean;
}
type PostgresResult = readonly Row[];
interface PostgresSql {
  unsafe(text: string, values?: readonly unknown[], options?: { prepare: boolean }): PromiseLike<PostgresResult | PostgresResult[]>;
  reserve(): Promise<PostgresSql & { release(): void }>;
  end(...args: unknown[]): Promise<void>;
}

/** The postgres.js sqls whose end() was called (the wrap below records it). */
const ended = new WeakSet<object>();

/** watchEnd wraps `sql.end` once so that a call of it is known here (postgres.js keeps no flag one can read). */
function watchEnd(sql: PostgresSql): void {
  if ((sql.end as { ratekeeper?: true }).ratekeeper === true) return;
  const end = sql.end;
  const watched = (...args: unknown[]) => {
    ended.add(sql);
    return end.apply(sql, args);
  };
  sql.end = Object.assign(watched, { ratekeeper: true as const });
}

/** EndedError: a postgres.js sql whose end() was called: refused, as pg refuses an ended pool. */
class EndedError extends Error {
  readonly code = 'CONNECTION_ENDED';
}

/** What a client cannot do, or undefined for one this store can use (./options.ts names it in its TypeError). */
export function refusal(client: unknown): string | undefined {
  if (typeof client === 'function' && typeof (client as Partial<PostgresSql>).unsafe === 'function' && typeof (client as Partial<PostgresSql>).reserve === 'function')
    return undefined;
  const c = client as Partial<PgPool> | null;
  if (typeof c !== 'object' || c === null || typeof c.connect !== 'function' || typeof c.query !== 'function') return 'a pg Pool or a postgres.js sql';
  if ('connectionParameters' in c) return 'a pg Pool, not a pg Client (one connection): new pg.Pool(…)';
  if (c.ending === true || c.ended === true) return 'a pg Pool that has not been ended';
  return undefined;
}

function ignore(): void {}

/** The pg clients given an 'error' listener for life: a dying connection emits 'error', which crashes a process with no listener attached at that moment. */
const guarded = new WeakSet<PgClient>();

/** The pg pools whose 'acquire' this module listens to (once per pool, whatever the number of stores on it). */
const watchedPools = new WeakSet<object>();

function guard(client: PgClient): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', ignore);
}

/** flatten reads either library's answer: one result, or one per statement. */
function flatten(result: unknown): Row[] {
  const items = Array.isArray(result) ? (result as unknown[]) : [result];
  const rows: Row[] = [];
  for (const item of items) {
    if (Array.isArray(item)) rows.push(...(item as Row[]));
    else if (item !== null && typeof item === 'object' && Array.isArray((item as PgResult).rows)) rows.push(...(item as PgResult).rows);
    else if (item !== null && typeof item === 'object') rows.push(item as Row);
  }
  return rows;
}

/** QUERY_RERUN_MS: how long a plain query is sent again while its connections die (core's Remote bounds the call sooner). */
const QUERY_RERUN_MS = 5_000;

/** toDb wraps a client this store can use (refusal() answered undefined); `lost` and `working` classify errors (./dialect.ts). */
export function toDb(client: unknown, lost: (error: unknown) => boolean, answered: (error: unknown) => void): Db {
  const session = sessionsOf(client);
  // postgres.js: a plain query on the pool itself (its reserve() never answers on a connection it had to
  // make with fetch_types off: a plain query makes them, the reserve after finds one open).
  const sql = typeof client === 'function' ? (client as unknown as PostgresSql) : undefined;
  const once = async (text: string): Promise<Row[]> => {
    if (sql !== undefined) return flatten(await sql.unsafe(text));
    const held = await session();
    try {
      const rows = await held.query(text);
      held.release(false);
      return rows;
    } catch (error) {
      held.release(lost(error));
      throw error;
    }
  };
  const again = async <T>(work: () => Promise<T>): Promise<T> => {
    const startedAt = performance.now();
    for (let reruns = 0; ; reruns++) {
      try {
        return await work();
      } catch (error) {
        answered(error);
        if (!lost(error) || unreachable(error) || performance.now() - startedAt > QUERY_RERUN_MS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(reruns, 10)));
      }
    }
  };
  const pool = client as PgPool;
  const call = async (name: string, text: string, values: readonly unknown[]): Promise<Row[]> => {
    if (sql !== undefined) return flatten(await sql.unsafe(text, values, { prepare: true }));
    const connection = await pool.connect();
    guard(connection);
    try {
      const rows = flatten(await connection.query({ name, text, values }));
      connection.release();
      return rows;
    } catch (error) {
      connection.release(lost(error));
      throw error;
    }
  };
  return { session, again, call, query: (text) => again(() => once(text)) };
}

function sessionsOf(client: unknown): () => Promise<Session> {
  if (typeof client === 'function') {
    const sql = client as unknown as PostgresSql;
    watchEnd(sql);
    return async () => {
      if (ended.has(sql)) throw new EndedError('PostgresStore: the postgres.js sql has been ended');
      const reserved = await sql.reserve();
      let released = false;
      return {
        query: async (text) => flatten(await reserved.unsafe(text)),
        release: (broken) => {
          // postgres.js has already set a failed connection aside; releasing it too would hand it to the next query.
          if (released) return;
          released = true;
          if (!broken) reserved.release();
        },
      };
    };
  }
  const pool = client as PgPool;
  if (typeof pool.on === 'function' && !watchedPools.has(pool)) {
    watchedPools.add(pool);
    pool.on('acquire', guard);
  }
  return async () => {
    const connection = await pool.connect();
    guard(connection);
    let released = false;
    return {
      query: async (text) => flatten(await connection.query(text)),
      release: (broken) => {
        if (released) return;
        released = true;
        connection.release(broken);
      },
    };
  };
}
