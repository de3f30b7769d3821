/**
 * The prepared statements of one connection: every statement the store runs, prepared once when the
 * file is opened. Reads go through the primary keys; the expired-row and eviction deletes walk an
 * index from its start and stop after `limit` rows, so nothing in a decision scans a table.
 */
import type { Connection, Statement } from '../file/driver.js';

export interface Sql {
  readonly begin: Statement;
  readonly beginRead: Statement;
  readonly commit: Statement;
  readonly rollback: Statement;
  /** (name) → keys, swept_at */
  readonly policy: Statement;
  /** (name, n): creates the row if needed */
  readonly addKeys: Statement;
  /** (name, instant): creates the row if needed */
  readonly sweptAt: Statement;
  /** (policy, key) → state */
  readonly state: Statement;
  /** (state, policy, key, least expires_at, most expires_at, least fill, fill below): the state alone, while the row's indexed columns still hold */
  readonly updateState: Statement;
  /** (state, expires_at, fill, policy, key) */
  readonly update: Statement;
  /** (policy, key, state, expires_at, fill) */
  readonly insert: Statement;
  /** (policy, key) */
  readonly remove: Statement;
  /** (policy, policy, now, limit) → expires_at of each deleted row */
  readonly expire: Statement;
  /** (policy, limit) → key, state, expires_at of the rows the expiry index puts first */
  readonly soonest: Statement;
  /** (policy, policy) → deletes the row with the most room (lowest fill, nearest empty) */
  readonly evict: Statement;
  /** (policy, key, now) → count of expired leases of the key */
  readonly expiredLeases: Statement;
  /** (policy, key, now) → deletes them */
  readonly dropExpiredLeases: Statement;
  /** (now, limit) → policy, key of each expired lease deleted, anywhere */
  readonly expireLeases: Statement;
  /** (policy, key, expires_at, holder, seq) */
  readonly insertLease: Statement;
  /** (policy, key, expires_at, holder, seq) */
  readonly removeLease: Statement;
  /** (new expires_at, policy, key, expires_at, holder, seq, now) */
  readonly renewLease: Statement;
  /** (policy, key) */
  readonly removeLeases: Statement;
  /** (policy, key) → ledger */
  readonly ledger: Statement;
  /** (policy, key, ledger, latest) */
  readonly putLedger: Statement;
  /** (policy, key) */
  readonly removeLedger: Statement;
  /** (before, limit) */
  readonly expireLedgers: Statement;
  /** (id, now) */
  readonly beat: Statement;
  /** (before) */
  readonly forgetPeers: Statement;
  /** () → n */
  readonly peers: Statement;
}

export function prepare(db: Connection): Sql {
  const p = (sql: string) => db.prepare(sql);
  return {
    begin: p('BEGIN IMMEDIATE'),
    beginRead: p('BEGIN'),
    commit: p('COMMIT'),
    rollback: p('ROLLBACK'),
    policy: p('SELECT keys, swept_at FROM rk_policies WHERE name = ?'),
    addKeys: p('INSERT INTO rk_policies (name, keys) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET keys = keys + excluded.keys'),
    sweptAt: p('INSERT INTO rk_policies (name, swept_at) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET swept_at = max(swept_at, excluded.swept_at)'),
    state: p('SELECT state FROM rk_state WHERE policy = ? AND key = ?'),
    updateState: p('UPDATE rk_state SET state = ? WHERE policy = ? AND key = ? AND expires_at >= ? AND expires_at <= ? AND fill >= ? AND fill < ?'),
    update: p('UPDATE rk_state SET state = ?, expires_at = ?, fill = ? WHERE policy = ? AND key = ?'),
    insert: p('INSERT INTO rk_state (policy, key, state, expires_at, fill) VALUES (?, ?, ?, ?, ?)'),
    remove: p('DELETE FROM rk_state WHERE policy = ? AND key = ?'),
    expire: p('DELETE FROM rk_state WHERE policy = ? AND key IN (SELECT key FROM rk_state WHERE policy = ? AND expires_at <= ? ORDER BY expires_at LIMIT ?) RETURNING expires_at'),
    soonest: p('SELECT key, state, expires_at FROM rk_state WHERE policy = ? ORDER BY expires_at LIMIT ?'),
    evict: p('DELETE FROM rk_state WHERE policy = ? AND key IN (SELECT key FROM rk_state WHERE policy = ? ORDER BY fill, expires_at LIMIT 1)'),
    expiredLeases: p('SELECT count(*) AS n FROM rk_leases WHERE policy = ? AND key = ? AND expires_at <= ?'),
    dropExpiredLeases: p('DELETE FROM rk_leases WHERE policy = ? AND key = ? AND expires_at <= ?'),
    expireLeases: p(
      'DELETE FROM rk_leases WHERE (policy, key, expires_at, holder, seq) IN (SELECT policy, key, expires_at, holder, seq FROM rk_leases WHERE expires_at <= ? ORDER BY expires_at LIMIT ?) RETURNING policy, key',
    ),
    insertLease: p('INSERT INTO rk_leases (policy, key, expires_at, holder, seq) VALUES (?, ?, ?, ?, ?)'),
    removeLease: p('DELETE FROM rk_leases WHERE policy = ? AND key = ? AND expires_at = ? AND holder = ? AND seq = ?'),
    renewLease: p('UPDATE rk_leases SET expires_at = ? WHERE policy = ? AND key = ? AND expires_at = ? AND holder = ? AND seq = ? AND expires_at > ?'),
    removeLeases: p('DELETE FROM rk_leases WHERE policy = ? AND key = ?'),
    ledger: p('SELECT ledger FROM rk_ledgers WHERE policy = ? AND key = ?'),
    putLedger: p(
      'INSERT INTO rk_ledgers (policy, key, ledger, latest) VALUES (?, ?, ?, ?) ON CONFLICT (policy, key) DO UPDATE SET ledger = excluded.ledger, latest = excluded.latest',
    ),
    removeLedger: p('DELETE FROM rk_ledgers WHERE policy = ? AND key = ?'),
    beat: p('INSERT INTO rk_peers (id, seen_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at'),
    forgetPeers: p('DELETE FROM rk_peers WHERE seen_at < ?'),
    peers: p('SELECT count(*) AS n FROM rk_peers'),
    expireLedgers: p('DELETE FROM rk_ledgers WHERE (policy, key) IN (SELECT policy, key FROM rk_ledgers WHERE latest <= ? ORDER BY latest LIMIT ?)'),
  };
}
