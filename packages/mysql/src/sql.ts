/**
 * MySQL's dialect: every SQL text MySqlStore sends (MariaDB 10.5+, MySQL 8.0.29+). Values go as `?`
 * parameters (row ids as the bytes of the kit's hex ids, states as BLOBs); the only identifiers are
 * the `table` option, checked at construction (./options.ts), always quoted. For a table T:
 * - T: a row per row id (core's row-id.ts), VARBINARY, with its state as little-endian doubles (exact;
 *   NULL: empty) and the server instant it is empty again, indexed for the sweep;
 * - T_commits: the id of every committed transaction, recorded by the commit routine (a lost commit
 *   reply's fate); T_peers: the processes last seen (the fallback's share);
 * - the commit routine: commits only while the server's clock is before the deadline, else rolls back,
 *   in one statement. Routine names ignore case where table names keep it, so its name carries which
 *   letters of T are capitals: `CaseA` and `casea` never share one, nor their commit records.
 * Times are server epoch ms from UTC_TIMESTAMP(6) (never the session's time zone); the kit floors them.
 */
import type { Write } from '@ratekeeper/core/store';

export type Flavor = 'mariadb' | 'mysql';

const NOW_MS = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) / 1000";

/** TIME reads the server's clock. */
export const TIME = `SELECT ${NOW_MS} AS now_ms`;

const quote = (name: string) => `\`${name}\``;
const marks = (n: number, tuple: string) => Array.from({ length: n }, () => tuple).join(',');

/** commitRoutine names T's commit routine: T, then the capitals of T as a bit mask (hex). */
export function commitRoutine(table: string): string {
  let capitals = 0n;
  for (let i = 0; i < table.length; i++) if (/[A-Z]/.test(table[i] as string)) capitals |= 1n << BigInt(i);
  return `${table}_c${capitals.toString(16)}`;
}

/** mysqlSchema is the schema of a store on `table`, its statements separated by a line holding only `--`. */
export function mysqlSchema(table: string): string {
  const commits = quote(`${table}_commits`);
  return `CREATE TABLE IF NOT EXISTS ${quote(table)} (
  k VARBINARY(1024) NOT NULL PRIMARY KEY,
  state MEDIUMBLOB NULL,
  expires_at DOUBLE NOT NULL DEFAULT 0,
  KEY ${quote(`${table}_expiry`)} (expires_at)
) ENGINE=InnoDB
--
CREATE TABLE IF NOT EXISTS ${commits} (id BIGINT NOT NULL PRIMARY KEY, at_ms DOUBLE NOT NULL, KEY ${quote(`${table}_age`)} (at_ms)) ENGINE=InnoDB
--
CREATE TABLE IF NOT EXISTS ${quote(`${table}_peers`)} (id VARCHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY, seen_at DOUBLE NOT NULL) ENGINE=InnoDB
--
CREATE PROCEDURE IF NOT EXISTS ${quote(commitRoutine(table))}(IN deadline DOUBLE, IN batch BIGINT)
BEGIN
  DECLARE at_ms DOUBLE DEFAULT ${NOW_MS};
  IF at_ms < deadline THEN
    INSERT INTO ${commits} (id, at_ms) VALUES (batch, at_ms);
    COMMIT;
    SELECT at_ms AS at_ms;
  ELSE
    ROLLBACK;
    SELECT -at_ms AS at_ms;
  END IF;
END`;
}

/**
 * bounded bounds a statement's lock waits on the server: MariaDB's max_statement_time (fractional
 * seconds: error 1969), MySQL 8's innodb_lock_wait_timeout for the statement (whole seconds, at least
 * one: error 1205), so a lock held by another session answers, and the database is heard working.
 */
function bounded(flavor: Flavor, ms: number, statement: string): string {
  if (flavor === 'mariadb') return `SET STATEMENT max_statement_time=${Math.max(1, Math.floor(ms)) / 1000} FOR ${statement}`;
  return statement.replace(/^(\w+) /, `$1 /*+ SET_VAR(innodb_lock_wait_timeout=${Math.max(1, Math.ceil(ms / 1000))}) */ `);
}

/** The statements of one table. */
export function statements(table: string, flavor: Flavor) {
  const t = quote(table);
  const peers = quote(`${table}_peers`);
  const commits = quote(`${table}_commits`);
  return {
    // A no-op update on a duplicate takes the row's exclusive lock at once (INSERT IGNORE would take a
    // shared one first, and two transactions upgrading shared locks deadlock); rows made only to be
    // locked vanish with a rollback.
    lock: (n: number, ms: number) => bounded(flavor, ms, `INSERT INTO ${t} (k) VALUES ${marks(n, '(?)')} ON DUPLICATE KEY UPDATE k = k`),
    read: (n: number) => `SELECT k, state, ${NOW_MS} AS now_ms, CONNECTION_ID() AS cid FROM ${t} WHERE k IN (${marks(n, '?')}) FOR UPDATE`,
    write: (n: number) => `INSERT INTO ${t} (k, state, expires_at) VALUES ${marks(n, '(?,?,?)')} ON DUPLICATE KEY UPDATE state = VALUES(state), expires_at = VALUES(expires_at)`,
    commit: `CALL ${quote(commitRoutine(table))}(?, ?)`,
    live: 'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID = ?',
    committed: `SELECT 1 AS found FROM ${commits} WHERE id = ? LOCK IN SHARE MODE`,
    sweep: (ms: number) => bounded(flavor, ms, `DELETE FROM ${t} WHERE expires_at < ? ORDER BY expires_at LIMIT ?`),
    sweepCommits: (ms: number) => bounded(flavor, ms, `DELETE FROM ${commits} WHERE at_ms < ${NOW_MS} - ? ORDER BY at_ms LIMIT ?`),
    beat: `INSERT INTO ${peers} (id, seen_at) VALUES (?, ${NOW_MS}) ON DUPLICATE KEY UPDATE seen_at = VALUES(seen_at)`,
    forget: `DELETE FROM ${peers} WHERE seen_at < ${NOW_MS} - ?`,
    count: `SELECT COUNT(*) AS n FROM ${peers}`,
  };
}

/** blob is a state as a BLOB of little-endian doubles (NULL: the empty state). */
function blob(state: Float64Array | undefined): Buffer | null {
  if (state === undefined) return null;
  const bytes = Buffer.allocUnsafe(state.length * 8);
  for (let i = 0; i < state.length; i++) bytes.writeDoubleLE(state[i] as number, i * 8);
  return bytes;
}

/** writeValues is a write's parameters: each row id's bytes, its state, its expiry (a DOUBLE holds no infinity). */
export function writeValues(writes: readonly Write[]): unknown[] {
  return writes.flatMap((w) => [Buffer.from(w.ref.id, 'hex'), blob(w.state), Math.min(Math.max(w.expiresAt, -Number.MAX_VALUE), Number.MAX_VALUE) || 0]);
}

/** readState reads a state BLOB back (NULL: the empty state). */
export function readState(bytes: Uint8Array | null): Float64Array | undefined {
  if (bytes === null) return undefined;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const state = new Float64Array(bytes.byteLength >> 3);
  for (let i = 0; i < state.length; i++) state[i] = view.readDoubleLE(i * 8);
  return state;
}
