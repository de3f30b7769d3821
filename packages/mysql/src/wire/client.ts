/**
 * The part of a mysql2 pool MySqlStore uses, structurally, so the package has no import of mysql2 at
 * run time (it is an optional peer): `getConnection()` for a batch's transaction (its connection is
 * released after, or destroyed when it failed inside one), `query()` for statements outside one. A
 * mysql2 callback pool is accepted too: its `promise()` wrapper is used.
 */

/** The result of a query: rows (an array) or an OK packet, and the fields. */
export type QueryResult = [unknown, unknown];

export interface MySqlConnection {
  query(sql: string, values?: unknown[]): Promise<QueryResult>;
  release(): void;
  destroy(): void;
}

/** MySqlPool is a mysql2 promise pool (`mysql.createPool(...).promise()` or `mysql2/promise`'s createPool). */
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
