/**
 * The SQL of MySqlStore, and nothing else: every statement it sends, for MariaDB (10.5+) and MySQL 8,
 * written so that the same text runs on both (no `AS new` row alias, no RETURNING, no CTE-only forms).
 * Everything MySQL-specific is here, so that a shared SQL-store kit can later swap this file for
 * another dialect's. Identifiers are the `table` option, checked at construction (../options.ts) to be
 * a plain name, and quoted with backticks.
 *
 * Tables, for a `table` option T:
 * - T: one row per policy name and key: the algorithm's state as a BLOB of little-endian doubles
 *   (empty: the key's empty state, a row that exists only to be locked), the server instant (epoch ms)
 *   at which that state is empty again, indexed for the sweep (./housekeeping.ts).
 * - T_commits: one row per committed batch (its random id), written by the commit procedure in the
 *   same transaction: after a connection lost while the COMMIT was on its way, it tells whether that
 *   transaction committed (../wire/transaction.ts). Swept by age.
 * - T_peers: the processes last seen deciding, for the fallback's share (./peers.ts).
 * - T_commit: a procedure that commits the open transaction only if the server's clock (read as the
 *   CALL starts) is still before the call's deadline, and rolls it back otherwise, in one statement, so that a call this process has
 *   given up on (and decided locally) can never be committed later (core's ServerClock contract).
 */

/** MAX_POLICY_NAME is the longest policy name the table stores (VARCHAR(191): a utf8mb4 index key). */
export const MAX_POLICY_NAME = 191;

/** The statements of one table name. */
export interface Dialect {
  readonly table: string;
  /** The whole schema, statements separated by a line holding only `--` (see schemaStatements). */
  readonly schema: string;
  /** (placeholder rows) locks the batch's keys in the order given, creating the missing ones. */
  lock(rows: number): string;
  /** (policy, key)… → policy, k, state, now_ms: the batch's rows, locked, and the server's instant. */
  read(rows: number): string;
  /** (policy, key, state, expires_at)… : writes the batch's states back. */
  write(rows: number): string;
  /** (deadline, batch id) → at_ms: commits if the server's clock is before deadline, answering its instant, else rolls back answering -instant. */
  readonly commit: string;
  /** → now_ms: the server's instant, for a request sent without a known clock. */
  readonly now: string;
  /** (batch id) → 1 row when that batch committed; a locking read, so it waits for a transaction still ending. */
  readonly committed: string;
  /** (before, limit): deletes up to `limit` rows empty before `before` (server ms), through the expiry index. */
  readonly sweepState: string;
  /** (age ms, limit): deletes up to `limit` commit records older than `age` on the server's clock. */
  readonly sweepCommits: string;
  /** (id): records this process as seen now. */
  readonly beat: string;
  /** (ttl ms): forgets the processes not seen for ttl. */
  readonly forgetPeers: string;
  /** → n: the processes seen. */
  readonly countPeers: string;
}

/**
 * NOW_MS is the server's clock in epoch milliseconds (with microseconds), counted from UTC_TIMESTAMP:
 * UNIX_TIMESTAMP(NOW()) would go through the session's time zone, and an hour of local time repeats
 * when daylight saving time ends.
 */
const NOW_MS = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) / 1000";

/** mysqlSchema is the schema of `table` (tables and procedure), for CREATE on first use or for a migration. */
export function mysqlSchema(table: string): string {
  const t = quote(table);
  const c = quote(`${table}_commits`);
  const p = quote(`${table}_peers`);
  const f = quote(`${table}_commit`);
  return `CREATE TABLE IF NOT EXISTS ${t} (
  policy VARCHAR(${MAX_POLICY_NAME}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  k VARBINARY(512) NOT NULL,
  state MEDIUMBLOB NOT NULL,
  expires_at DOUBLE NOT NULL,
  PRIMARY KEY (policy, k),
  KEY ${quote(`${table}_expiry`)} (expires_at)
) ENGINE=InnoDB
--
CREATE TABLE IF NOT EXISTS ${c} (
  id BIGINT NOT NULL PRIMARY KEY,
  at_ms DOUBLE NOT NULL,
  KEY ${quote(`${table}_commits_age`)} (at_ms)
) ENGINE=InnoDB
--
CREATE TABLE IF NOT EXISTS ${p} (
  id VARCHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  seen_at DOUBLE NOT NULL
) ENGINE=InnoDB
--
CREATE PROCEDURE IF NOT EXISTS ${f}(IN deadline DOUBLE, IN batch BIGINT)
BEGIN
  DECLARE at_ms DOUBLE DEFAULT ${NOW_MS};
  IF at_ms < deadline THEN
    INSERT INTO ${c} (id, at_ms) VALUES (batch, at_ms);
    COMMIT;
    SELECT at_ms AS at_ms;
  ELSE
    ROLLBACK;
    SELECT -at_ms AS at_ms;
  END IF;
END`;
}

/**
 * schemaStatements splits a schema into its statements. MySQL 8 has no CREATE PROCEDURE IF NOT EXISTS
 * (MariaDB has): there the store checks for the procedure first and drops the clause (./schema.ts).
 */
export function schemaStatements(schema: string): string[] {
  return schema.split('\n--\n').map((s) => s.trim());
}

/** dialect prepares the statements for `table`. */
export function dialect(table: string): Dialect {
  const t = quote(table);
  const c = quote(`${table}_commits`);
  const p = quote(`${table}_peers`);
  const tuples = (n: number, tuple: string) => Array.from({ length: n }, () => tuple).join(',');
  return {
    table,
    schema: mysqlSchema(table),
    // A no-op update on a duplicate takes the row's exclusive lock at once (INSERT IGNORE would take
    // a shared one first, and two batches upgrading shared locks deadlock).
    lock: (n) => `INSERT INTO ${t} (policy, k, state, expires_at) VALUES ${tuples(n, "(?, ?, '', 0)")} ON DUPLICATE KEY UPDATE expires_at = expires_at`,
    read: (n) => `SELECT policy, k, state, ${NOW_MS} AS now_ms FROM ${t} WHERE (policy, k) IN (${tuples(n, '(?, ?)')}) FOR UPDATE`,
    write: (n) =>
      `INSERT INTO ${t} (policy, k, state, expires_at) VALUES ${tuples(n, '(?, ?, ?, ?)')} ON DUPLICATE KEY UPDATE state = VALUES(state), expires_at = VALUES(expires_at)`,
    commit: `CALL ${quote(`${table}_commit`)}(?, ?)`,
    now: `SELECT ${NOW_MS} AS now_ms`,
    committed: `SELECT 1 AS found FROM ${c} WHERE id = ? LOCK IN SHARE MODE`,
    sweepState: `DELETE FROM ${t} WHERE expires_at < ? ORDER BY expires_at LIMIT ?`,
    sweepCommits: `DELETE FROM ${c} WHERE at_ms < ${NOW_MS} - ? ORDER BY at_ms LIMIT ?`,
    beat: `INSERT INTO ${p} (id, seen_at) VALUES (?, ${NOW_MS}) ON DUPLICATE KEY UPDATE seen_at = VALUES(seen_at)`,
    forgetPeers: `DELETE FROM ${p} WHERE seen_at < ${NOW_MS} - ?`,
    countPeers: `SELECT COUNT(*) AS n FROM ${p}`,
  };
}

function quote(name: string): string {
  return `\`${name}\``;
}
