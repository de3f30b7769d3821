/**
 * The client, duck-typed: a `pg` Pool (node-postgres) or a postgres.js `sql`, and nothing of either
 * library imported (both stay optional peer dependencies). The store needs two things of it:
 *
 * - `query(text)`: one round trip of plain text (the simple query protocol: several statements, no
 *   parameters) on any connection, answering the rows of every statement in order, flattened (each
 *   text the store sends has at most one statement that returns rows);
 * - `session()`: one connection held for a transaction's round trips, then given back with
 *   `release(broken)`; a broken one is destroyed rather than reused, since a connection that failed
 *   mid-transaction may still hold it open.
 *
 * Row values are read as text (the SQL casts them): neither library's type parsers are involved.
 *
 * A plain query (the server's clock, a ping, a beat, a transaction's fate, a sweep; and the schema's
 * creation, through `rerun`: each harmless to run twice) whose connection fails is sent again on
 * another, for up to QUERY_RERUN_MS: a connection killed by an administrator or a pooler is not the
 * database failing. A database that refuses connections fails the query at once.
 *
 * What the database answers outside a query's rows is told to the store (`onAnswer`): an error a
 * working database sent (./failure.ts, working) on a plain query's connection, such as a backend
 * terminated by an administrator. A store whose pings keep losing their connections to a storm of
 * kills hears the database working through them. (A connection made is not counted: a pooler in front
 * of a stopped database makes them too.)
 */
import { unreachable } from '@ratekeeper/core/store';
import { breaksConnection, working } from './failure.js';

export type Row = Readonly<Record<string, unknown>>;

export interface Session {
  query(text: string): Promise<Row[]>;
  release(broken: boolean): void;
}

export interface Db {
  /** Which library the client is. */
  readonly kind: 'pg' | 'postgres';
  query(text: string): Promise<Row[]>;
  session(): Promise<Session>;
  /** onAnswer sets what runs when the database answers outside a query's rows (see above). */
  onAnswer(listener: () => void): void;
  /** rerun runs `query` (harmless to run twice: the schema's creation) again while its connection fails, telling onAnswer as `query` does. */
  rerun<T>(query: () => Promise<T>): Promise<T>;
}

interface PgResult {
  readonly rows: Row[];
}
interface PgClient {
  query(text: string): Promise<PgResult | PgResult[]>;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

function ignore(): void {}

/** The pg clients given the error listener below. */
const guarded = new WeakSet<PgClient>();

/**
 * guard gives a pg client a listener for its 'error' for the rest of its life: a client whose
 * connection dies emits 'error' (twice when the server said why before closing), which crashes the
 * process whenever no listener happens to be attached at that moment; the query that follows fails
 * and tells the store. The pool's own listeners come and go around it.
 */
function guard(client: PgClient): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', ignore);
}
interface PgPool {
  connect(): Promise<PgClient>;
  query(text: string): unknown;
  on?(event: 'acquire', listener: (client: PgClient) => void): unknown;
}
type PostgresResult = readonly Row[];
interface PostgresSql {
  unsafe(text: string): PromiseLike<PostgresResult | PostgresResult[]>;
  reserve(): Promise<PostgresReserved>;
}
interface PostgresReserved extends PostgresSql {
  release(): void;
}

/** isPgPool tells a node-postgres Pool (or anything with its connect and query). */
function isPgPool(client: unknown): client is PgPool {
  const c = client as Partial<PgPool> | null;
  return typeof c === 'object' && c !== null && typeof c.connect === 'function' && typeof c.query === 'function';
}

/** isPostgresSql tells a postgres.js `sql` (a function with unsafe and reserve). */
function isPostgresSql(client: unknown): client is PostgresSql {
  if (typeof client !== 'function') return false;
  const c = client as unknown as Partial<PostgresSql>;
  return typeof c.unsafe === 'function' && typeof c.reserve === 'function';
}

/** isClient tells whether `client` is one this store can use. */
export function isClient(client: unknown): boolean {
  return isPostgresSql(client) || isPgPool(client);
}

/** pgRows flattens node-postgres's answer: one result, or one per statement. */
function pgRows(result: PgResult | PgResult[]): Row[] {
  if (!Array.isArray(result)) return result.rows;
  return result.length === 1 ? (result[0] as PgResult).rows : result.flatMap((r) => r.rows);
}

/** postgresRows flattens postgres.js's answer: a result (an array of rows), or one per statement. */
function postgresRows(result: PostgresResult | PostgresResult[]): Row[] {
  const rows: Row[] = [];
  for (const item of result as readonly unknown[]) {
    if (Array.isArray(item)) rows.push(...(item as Row[]));
    else rows.push(item as Row);
  }
  return rows;
}

/** QUERY_RERUN_MS: how long a plain query is sent again while its connections fail (core's Remote bounds the call sooner). */
const QUERY_RERUN_MS = 5_000;

/** rerun runs `query` again while its connection fails (see above); `answered` hears the errors the database sent while working. */
async function rerun<T>(query: () => Promise<T>, answered: () => void = ignore): Promise<T> {
  const startedAt = performance.now();
  for (let reruns = 0; ; reruns++) {
    try {
      return await query();
    } catch (error) {
      if (working(error)) answered();
      if (!breaksConnection(error) || unreachable(error) || performance.now() - startedAt > QUERY_RERUN_MS) throw error;
      // Another turn first: a connection that fails at once must not spin this process.
      await new Promise((resolve) => setTimeout(resolve, Math.min(reruns, 10)));
    }
  }
}

/** toDb wraps a client (checked by isClient). */
export function toDb(client: unknown): Db {
  let listener = ignore;
  const answered = (): void => listener();
  const onAnswer = (next: () => void): void => {
    listener = next;
  };
  const again = <T>(query: () => Promise<T>): Promise<T> => rerun(query, answered);
  if (isPostgresSql(client)) {
    const sql = client;
    return {
      kind: 'postgres',
      onAnswer,
      rerun: again,
      query: (text) => again(async () => postgresRows(await sql.unsafe(text))),
      session: async () => {
        const reserved = await sql.reserve();
        let released = false;
        return {
          query: async (text) => postgresRows(await reserved.unsafe(text)),
          release: (broken) => {
            // postgres.js has already set a failed connection aside (it reconnects it later); releasing
            // it too would hand the closed connection to the next query.
            if (released) return;
            released = true;
            if (!broken) reserved.release();
          },
        };
      },
    };
  }
  const pool = client as PgPool;
  // Guarded at acquisition, synchronously (the pool's 'acquire' event), and again when handed over.
  if (typeof pool.on === 'function') pool.on('acquire', guard);
  const session = async (): Promise<Session> => {
    const connection = await pool.connect();
    guard(connection);
    let released = false;
    return {
      query: async (text) => pgRows(await connection.query(text)),
      release: (broken) => {
        if (released) return;
        released = true;
        connection.release(broken);
      },
    };
  };
  return {
    kind: 'pg',
    onAnswer,
    rerun: again,
    // Not pool.query: it listens `once` for a client's error, and a killed connection emits two.
    query: (text) =>
      again(async () => {
        const held = await session();
        try {
          const rows = await held.query(text);
          held.release(false);
          return rows;
        } catch (error) {
          held.release(true);
          throw error;
        }
      }),
    session,
  };
}
