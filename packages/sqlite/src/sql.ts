/**
 * The file's schema and statements. Every process creates the tables if missing (in one immediate
 * transaction) and checks the schema version: a file of another version is refused ('corrupt').
 * rk_rows holds core's kit rows (a key's state under a policy, its ban, its booking ledger) by id, with
 * `empty_at` (the kit's expiry, not indexed) and `expires_at` and `fill`, kept loosely (./rows.ts) for
 * the indexes of a name's expired rows and of its eviction order; rk_names counts each name's rows;
 * rk_peers holds the processes last seen. No statement of a decision scans a table.
 */
import { type Connection, type Statement, quietly } from './driver.js';

const SCHEMA_VERSION = '2';

const TABLES = `
CREATE TABLE IF NOT EXISTS rk_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rk_rows (id BLOB PRIMARY KEY, name TEXT NOT NULL, state BLOB NOT NULL, empty_at REAL NOT NULL, expires_at REAL NOT NULL, fill REAL NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rk_rows_expiry ON rk_rows (name, expires_at);
CREATE INDEX IF NOT EXISTS rk_rows_room ON rk_rows (name, fill);
CREATE TABLE IF NOT EXISTS rk_names (name TEXT PRIMARY KEY, keys INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rk_peers (id TEXT PRIMARY KEY, seen_at REAL NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO rk_meta (name, value) VALUES ('schema', '${SCHEMA_VERSION}');`;

/** setUp makes sure the tables exist, on WAL (readers never block the writer) with synchronous NORMAL (a commit survives any process's crash). */
export function setUp(db: Connection, sliceMs: number): void {
  db.exec(`PRAGMA busy_timeout = ${sliceMs}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 4194304`);
  if (version(db) === SCHEMA_VERSION) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(TABLES);
    // Another version's tables: refused as SQLite's NOTADB ('corrupt').
    if (version(db) !== SCHEMA_VERSION) throw Object.assign(new Error(`SqliteStore: the file holds another schema than ${SCHEMA_VERSION}`), { code: 'SQLITE_NOTADB' });
    db.exec('COMMIT');
  } catch (error) {
    quietly(() => db.exec('ROLLBACK')); // SQLite may have rolled it back already
    throw error;
  }
}

export type Sql = ReturnType<typeof prepare>;

function version(db: Connection): unknown {
  if (db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'rk_meta'").get() === undefined) return undefined;
  return db.prepare("SELECT value FROM rk_meta WHERE name = 'schema'").get()?.['value'];
}

/** prepare prepares every statement of one connection (parameters in the order of their placeholders). */
export function prepare(db: Connection) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    begin: p('BEGIN IMMEDIATE'),
    beginRead: p('BEGIN'),
    commit: p('COMMIT'),
    rollback: p('ROLLBACK'),
    read: p('SELECT state, expires_at, fill FROM rk_rows WHERE id = ?'),
    updateState: p('UPDATE rk_rows SET state = ?, empty_at = ? WHERE id = ?'),
    update: p('UPDATE rk_rows SET state = ?, empty_at = ?, expires_at = ?, fill = ? WHERE id = ?'),
    insert: p('INSERT INTO rk_rows (id, name, state, empty_at, expires_at, fill) VALUES (?, ?, ?, ?, ?, ?)'),
    remove: p('DELETE FROM rk_rows WHERE id = ?'),
    keys: p('SELECT keys FROM rk_names WHERE name = ?'),
    count: p('INSERT INTO rk_names (name, keys) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET keys = keys + excluded.keys'),
    // (name, before, limit): a name's rows whose expires_at is at or before `before`, soonest first.
    expire: p('DELETE FROM rk_rows WHERE id IN (SELECT id FROM rk_rows WHERE name = ? AND expires_at <= ? ORDER BY expires_at LIMIT ?)'),
    // (name, now): one row empty by now among the 8 the expiry index puts first (its expires_at may lie past its empty instant).
    emptyOne: p('DELETE FROM rk_rows WHERE id = (SELECT id FROM (SELECT id, empty_at FROM rk_rows WHERE name = ? ORDER BY expires_at LIMIT 8) WHERE empty_at <= ? LIMIT 1)'),
    // (name): the row with the most room (the lowest fill; ties in id order), never a pinned one.
    evict: p('DELETE FROM rk_rows WHERE id = (SELECT id FROM rk_rows WHERE name = ? AND fill < 9e999 ORDER BY fill LIMIT 1)'),
    beat: p('INSERT INTO rk_peers (id, seen_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at'),
    forgetPeers: p('DELETE FROM rk_peers WHERE seen_at < ?'),
    peers: p('SELECT count(*) AS n FROM rk_peers'),
  };
}
