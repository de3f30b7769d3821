/**
 * The file's tables. Every process that opens the file creates them if they are missing (in one
 * immediate transaction, so two processes starting together cannot both half-create them) and checks
 * the schema version, so a file written by an incompatible version is refused rather than misread.
 *
 * - rk_policies: one row per policy name: how many keys it holds (the maxKeys bound is checked against
 *   it without counting rows) and `swept_at`, the latest instant at which a state deleted as expired
 *   became empty (an earlier reading of the clock is read as that instant: see ../rows/table.ts).
 * - rk_state: one row per policy and key: the algorithm's state as a BLOB of doubles, the instant it
 *   is empty again (`expires_at`) and the fraction of the limit it held when written (`fill`). Two
 *   indexes give, without a scan, the expired rows (policy, expires_at) and the eviction order
 *   (policy, fill, expires_at).
 * - rk_leases: one row per concurrency unit in flight: who holds it (a random id per binding) and when
 *   it expires unless renewed; indexed by expiry for the cleanup of crashed processes' leases.
 * - rk_peers: the processes last seen on the file, for the fallback's share (../file/peers.ts).
 * - rk_ledgers: the booking ledger of a key with reservations ahead (../bindings/reserve.ts), with the latest
 *   instant booked, indexed for cleanup.
 */
import type { Connection } from '../file/driver.js';

export const SCHEMA_VERSION = '1';

const TABLES = `
CREATE TABLE IF NOT EXISTS rk_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rk_policies (name TEXT PRIMARY KEY, keys INTEGER NOT NULL DEFAULT 0, swept_at REAL NOT NULL DEFAULT -9e999) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rk_state (
  policy TEXT NOT NULL, key BLOB NOT NULL, state BLOB NOT NULL, expires_at REAL NOT NULL, fill REAL NOT NULL,
  PRIMARY KEY (policy, key)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rk_state_expiry ON rk_state (policy, expires_at);
CREATE INDEX IF NOT EXISTS rk_state_room ON rk_state (policy, fill, expires_at);
CREATE TABLE IF NOT EXISTS rk_leases (
  policy TEXT NOT NULL, key BLOB NOT NULL, expires_at REAL NOT NULL, holder INTEGER NOT NULL, seq INTEGER NOT NULL,
  PRIMARY KEY (policy, key, expires_at, holder, seq)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rk_leases_expiry ON rk_leases (expires_at);
CREATE TABLE IF NOT EXISTS rk_ledgers (policy TEXT NOT NULL, key BLOB NOT NULL, ledger BLOB NOT NULL, latest REAL NOT NULL, PRIMARY KEY (policy, key)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rk_ledgers_latest ON rk_ledgers (latest);
CREATE TABLE IF NOT EXISTS rk_peers (id TEXT PRIMARY KEY, seen_at REAL NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO rk_meta (name, value) VALUES ('schema', '${SCHEMA_VERSION}');
`;

/**
 * setUp configures a fresh connection and makes sure the tables exist: WAL (readers never block the
 * writer, and a commit is one append), synchronous NORMAL (a commit survives the crash of any process;
 * only a power loss can drop the latest few, which for rate-limit state is a few decisions forgotten,
 * never a corrupt file), the WAL truncated back to 4 MB after each checkpoint. A lock is waited for
 * `sliceMs` at a time (../file/file.ts waits longer while others make progress).
 */
export function setUp(db: Connection, sliceMs: number): void {
  db.exec(`PRAGMA busy_timeout = ${sliceMs}`);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA journal_size_limit = 4194304');
  if (version(db) !== SCHEMA_VERSION) create(db);
}

function version(db: Connection): unknown {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'rk_meta'").get();
  return hasMeta === undefined ? undefined : db.prepare("SELECT value FROM rk_meta WHERE name = 'schema'").get()?.['value'];
}

function create(db: Connection): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(TABLES);
    const found = version(db);
    if (found !== SCHEMA_VERSION) throw new SchemaError(String(found));
    db.exec('COMMIT');
  } catch (error) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // SQLite already rolled it back.
    }
    throw error;
  }
}

/** SchemaError: the file holds ratekeeper tables of another schema version. */
export class SchemaError extends Error {
  // Classified as SQLite's NOTADB: the file is not a database this version can use.
  readonly code = 'SQLITE_NOTADB';
  constructor(version: string) {
    super(`SqliteStore: the file holds schema version ${version}, this version reads ${SCHEMA_VERSION}`);
  }
}
