/**
 * The PostgreSQL the tests run against: the machine's server on 127.0.0.1:5432 (database `test`, user
 * `root`, trust auth), a pg Pool or a postgres.js sql per test file, and a table name no other file
 * uses (the files of this package run one at a time, but another checkout's may run beside them).
 * Under CI=true a missing server fails the suite; otherwise the suite is skipped, loudly.
 */
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import postgres from 'postgres';
import { describe } from 'vitest';

export const PG = { host: '127.0.0.1', port: 5432, user: 'root', database: 'test' } as const;

export type ClientKind = 'pg' | 'postgres';

/** serverUp tells whether the server answers (pg_isready). */
function serverUp(): boolean {
  try {
    execFileSync('pg_isready', ['-h', PG.host, '-p', String(PG.port), '-t', '3'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const UP = serverUp();
if (!UP && process.env['CI'] === 'true') throw new Error(`PostgreSQL is not answering on ${PG.host}:${PG.port}; CI runs these tests against it`);
if (!UP) console.warn(`SKIPPED: PostgreSQL is not answering on ${PG.host}:${PG.port}`);

/** describeDb is describe when the server answers, describe.skip otherwise (never under CI: see above). */
export const describeDb = (UP ? describe : describe.skip) as typeof describe.skip;

export function pgPool(options: pg.PoolConfig = {}): pg.Pool {
  return new pg.Pool({ ...PG, ...options });
}

export function postgresSql(options: postgres.Options<Record<string, never>> = {}): postgres.Sql {
  return postgres({ host: PG.host, port: PG.port, username: PG.user, database: PG.database, onnotice: () => {}, ...options });
}

/** Client is one of the two libraries, with its own end(). */
export interface Client {
  readonly kind: ClientKind;
  readonly client: unknown;
  end(): Promise<void>;
}

export function makeClient(kind: ClientKind): Client {
  if (kind === 'pg') {
    const pool = pgPool();
    return { kind, client: pool, end: () => pool.end() };
  }
  const sql = postgresSql();
  return { kind, client: sql, end: () => sql.end({ timeout: 1 }) };
}

/** clientOn makes `kind`'s client as the README does (a pg Pool with an 'error' listener; postgres.js), on `port`. */
export function clientOn(kind: ClientKind, port: number): Client {
  if (kind === 'pg') {
    const pool = new pg.Pool({ ...PG, port });
    pool.on('error', () => {});
    return { kind, client: pool, end: () => pool.end().catch(() => {}) };
  }
  const sql = postgres({ host: PG.host, port, username: PG.user, database: PG.database, onnotice: () => {}, fetch_types: false });
  return { kind, client: sql, end: () => sql.end({ timeout: 1 }).catch(() => {}) };
}

/** uniqueTable is a table name for one test file's run: `rk_<label>_<pid>_<random>`. */
export function uniqueTable(label: string): string {
  return `rk_${label}_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
}

/** dropTables removes a store's tables. */
export async function dropTables(table: string): Promise<void> {
  const pool = pgPool();
  try {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_peers`);
  } finally {
    await pool.end();
  }
}
