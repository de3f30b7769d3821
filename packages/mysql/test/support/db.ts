/**
 * The MariaDB (or MySQL) server the suites run against: 127.0.0.1:3306, user root without a password,
 * database `test` (RATEKEEPER_MYSQL_URL overrides). Each test file uses tables of its own (`table(...)`
 * names them after the file and this process), dropped after. On a developer machine without the
 * server the suites are skipped loudly; in CI (CI=true) they fail instead (test/api.test.ts).
 */
import { nameHead, rowId } from '@ratekeeper/core/store';
import mysql from 'mysql2/promise';
import { describe } from 'vitest';
import { commitRoutine } from '../../src/sql.js';

export const inCI = process.env['CI'] === 'true';
export const MYSQL_URL = process.env['RATEKEEPER_MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306/test';

async function reachable(): Promise<boolean> {
  const connection = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 2000 }).catch(() => undefined);
  if (connection === undefined) return false;
  await connection.end();
  return true;
}

export const hasMySql = await reachable();

if (!hasMySql && !inCI) {
  console.warn(`\n*** No MySQL/MariaDB at ${MYSQL_URL}: the suites of @ratekeeper/mysql are SKIPPED. CI fails instead of skipping. ***\n`);
}

export const describeMySql = (hasMySql ? describe : describe.skip) as typeof describe.skip;

/** createPool makes a pool on the test server (default options but for its size). */
export function createPool(connectionLimit = 10): mysql.Pool {
  return mysql.createPool({ uri: MYSQL_URL, connectionLimit });
}

/** poolOn makes a pool as the README does, on `port` of the test server's host (a proxy's, a relay's). */
export function poolOn(port: number): mysql.Pool {
  return mysql.createPool({ uri: MYSQL_URL.replace(`:${new URL(MYSQL_URL).port}/`, `:${port}/`), connectionLimit: 10 });
}

/** table names a table for `file` (a short word) unique to this process. */
export function table(file: string): string {
  return `rkt_${file}_${process.pid}`;
}

/** dropTable removes a store's tables and commit routine. */
export async function dropTable(pool: mysql.Pool, name: string): Promise<void> {
  await pool.query(`DROP TABLE IF EXISTS \`${name}\`, \`${name}_commits\`, \`${name}_peers\``);
  await pool.query(`DROP PROCEDURE IF EXISTS \`${commitRoutine(name)}\``);
}

/** stateOf reads the state of `key` under policy `name` from `table` (core's row ids; doubles, little-endian). */
export async function stateOf(pool: mysql.Pool, table: string, name: string, key: string): Promise<number[] | undefined> {
  const [rows] = await pool.query(`SELECT state FROM \`${table}\` WHERE k = UNHEX(?)`, [rowId(nameHead(name), key)]);
  const state = (rows as { state: Buffer | null }[])[0]?.state;
  if (state === undefined || state === null) return undefined;
  return Array.from({ length: state.length / 8 }, (_, i) => state.readDoubleLE(8 * i));
}

/** countOf is a fixed window's count ([start, count]) of `key` under policy `name`. */
export async function countOf(pool: mysql.Pool, table: string, name: string, key: string): Promise<number | undefined> {
  return (await stateOf(pool, table, name, key))?.[1];
}
