/**
 * The part of a mysql2 pool MySqlStore uses, structurally (mysql2 is an optional peer, never imported):
 * `getConnection()` for a transaction (released after it, destroyed when it failed inside one),
 * `query()` for a statement outside one; a callback pool through its `promise()`. A plain query whose
 * connection dies (killed by an administrator, a proxy) is sent again on another for up to
 * QUERY_RERUN_MS: that is not the database failing. One the server refuses fails at once.
 */

/** The result of a query: rows (an array) or an OK packet, and the fields. */
export type QueryResult = [unknown, unknown];

export interface MySqlConnection {
  query(sql: string, values?: unknown[]): Promise<QueryResult>;
  release(): void;
  destroy(): void;
}

/** MySqlPool is a mysql2 promise pool (`mysql2/promise`'s createPool, or `createPool(…).promise()`). */
export interface MySqlPool {
  getConnection(): Promise<MySqlConnection>;
  query(sql: string, values?: unknown[]): Promise<QueryResult>;
}

/** asPool answers `client` as a promise pool, or undefined when it is not a pool. */
export function asPool(client: unknown): MySqlPool | undefined {
  const c = client as { getConnection?: unknown; query?: unknown; promise?: unknown } | null;
  if (typeof c !== 'object' || c === null || typeof c.getConnection !== 'function' || typeof c.query !== 'function') return undefined;
  if (typeof c.promise === 'function') return asPool((c.promise as () => unknown).call(c));
  return c as MySqlPool;
}

/** QUERY_RERUN_MS: how long a plain query is sent again while its connections die (core's Remote bounds the call sooner). */
const QUERY_RERUN_MS = 5_000;

/** rerunning is `pool.query` sent again while its connection dies (`died`); what the database said is told to `answered`. */
export function rerunning(pool: MySqlPool, died: (error: unknown) => boolean, answered: (error: unknown) => void) {
  return async (sql: string, values?: unknown[]): Promise<QueryResult> => {
    const startedAt = performance.now();
    for (let reruns = 0; ; reruns++) {
      try {
        return await pool.query(sql, values);
      } catch (error) {
        answered(error);
        if (!died(error) || performance.now() - startedAt > QUERY_RERUN_MS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(reruns, 10)));
      }
    }
  };
}
