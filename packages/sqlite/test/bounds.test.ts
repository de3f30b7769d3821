/**
 * The file stays bounded whatever keys clients send. Per policy at most maxKeys rows; a flood of fresh
 * keys evicts the keys with the most room first, so a blocked key stays blocked (the memory store's
 * guarantee; a mutant build evicting by the expiry alone evicts it, as every key of one fixed window
 * shares that instant); a full table deletes a row empty by now before it evicts a live key, though
 * the row's expiry lies past its empty instant (a mutant trusting the expiry evicts one); expired rows
 * are deleted two per new key, without a scan (every statement's query plan searches an index); the
 * file stays near its size once the table is full; and bans keep to maxKeys per file. */
import { BanLimiter, FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../src/index.js';
import { loadDriver } from '../src/driver.js';
import { prepare } from '../src/sql.js';
import { tempDir } from './support/files.js';
import { mutantBuild } from './support/mutant-builds.js';

const T = 1_700_000_000_000;
const dir = tempDir();
afterAll(() => dir.remove());

function query<T>(path: string, sql: string, ...params: (string | number)[]): T {
  const db = loadDriver('test', 'auto').open(path);
  try {
    return db.prepare(sql).get(...params) as T;
  } finally {
    db.close();
  }
}

const rows = (path: string) => query<{ n: number }>(path, 'SELECT count(*) AS n FROM rk_rows').n;

/** flood makes one request on each of `n` fresh keys, and answers whether the blocked key is still blocked. */
function blockedAfterFlood(Store: typeof SqliteStore, path: string, n: number): boolean {
  const store = new Store({ path, maxKeys: 1000 });
  const limiter = new FixedWindowLimiter({ limit: 5, windowMs: 3_600_000, store, clock: new ManualClock(T) });
  for (let i = 0; i < 5; i++) limiter.consume('a-blocked');
  for (let i = 0; i < n; i++) limiter.consume(`flood-${i}`);
  const blocked = !limiter.consume('a-blocked').allowed;
  store.close();
  return blocked;
}

describe('a key flood', () => {
  it('keeps at most maxKeys rows and never evicts a blocked key while keys with more room remain', () => {
    const path = dir.file();
    expect(blockedAfterFlood(SqliteStore, path, 5000)).toBe(true);
    expect(rows(path)).toBe(1000);
    expect(query<{ keys: number }>(path, 'SELECT keys FROM rk_names').keys).toBe(1000);
  });

  it('catches a mutant that evicts by the expiry alone', async () => {
    const { SqliteStore: Mutant } = (await import(mutantBuild('evict-by-expiry'))) as { SqliteStore: typeof SqliteStore };
    expect(blockedAfterFlood(Mutant, dir.file(), 5000)).toBe(false);
  });

  /**
   * liveAfterFullTable: a table of 3 keys, one of them used up in a 10 s window and so empty from its
   * end on (its expiry, kept loosely, lies 30 s later: src/rows.ts); two keys use 1 each just after
   * that end, and a fourth arrives. What the two live keys have left.
   */
  function liveAfterFullTable(Store: typeof SqliteStore): number[] {
    const store = new Store({ path: dir.file(), maxKeys: 3 });
    const clock = new ManualClock(T);
    const limiter = new FixedWindowLimiter({ limit: 5, windowMs: 10_000, store, clock });
    for (let i = 0; i < 5; i++) limiter.consume('a-used-up');
    clock.set(T + 10_400);
    limiter.consume('b');
    clock.set(T + 10_500);
    limiter.consume('c');
    clock.set(T + 10_600);
    limiter.consume('d');
    const left = ['b', 'c'].map((key) => limiter.peek(key).remaining);
    store.close();
    return left;
  }

  it('at maxKeys deletes a row empty by now, its expiry not yet passed, before it evicts a live key', async () => {
    expect(liveAfterFullTable(SqliteStore)).toEqual([3, 3]);
    const { SqliteStore: Mutant } = (await import(mutantBuild('empty-by-stored-expiry'))) as { SqliteStore: typeof SqliteStore };
    expect(liveAfterFullTable(Mutant)).toContain(4);
  });

  it('keeps the file near its size at the first full table while ten times as many keys pass', () => {
    const path = dir.file();
    const store = new SqliteStore({ path, maxKeys: 1000 });
    const limiter = new FixedWindowLimiter({ limit: 5, windowMs: 3_600_000, store, clock: new ManualClock(T) });
    const pages = () => query<{ page_count: number }>(path, 'PRAGMA page_count').page_count;
    for (let i = 0; i < 2000; i++) limiter.consume(`first-${i}`);
    store.close(); // checkpoints the WAL into the file
    const full = pages();
    const again = new SqliteStore({ path, maxKeys: 1000 });
    const more = new FixedWindowLimiter({ limit: 5, windowMs: 3_600_000, store: again, clock: new ManualClock(T) });
    for (let i = 0; i < 20_000; i++) more.consume(`second-${i}`);
    again.close();
    // 20,000 keys unbounded would take about ten times the pages; freed pages are reused (B-tree
    // splits leave a few partly filled), so the file stays near its size at the first full table.
    expect(pages()).toBeLessThanOrEqual(Math.ceil(full * 1.25));
  });
});

describe('bans', () => {
  it('keep to maxKeys per file, counted across processes (two stores on one file)', () => {
    const path = dir.file();
    const clock = new ManualClock(T);
    const banning = (store: SqliteStore) => new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 1, windowMs: 3_600_000, store, clock, name: 'login' }), banMs: 3_600_000 });
    const first = new SqliteStore({ path, maxKeys: 3 });
    const second = new SqliteStore({ path, maxKeys: 3 });
    for (const [store, keys] of [
      [first, ['a', 'b', 'c']],
      [second, ['d', 'e']],
    ] as const) {
      const limiter = banning(store);
      for (const key of keys) for (let i = 0; i < 2; i++) limiter.consume(key);
    }
    first.close();
    second.close();
    expect(query<{ n: number }>(path, "SELECT count(*) AS n FROM rk_rows WHERE name = 'login#ban'").n).toBe(3);
  });
});

describe('expired rows', () => {
  it('are deleted two per new key once empty for the grace period, and never scanned for', () => {
    const path = dir.file();
    const clock = new ManualClock(T);
    const store = new SqliteStore({ path });
    const limiter = new FixedWindowLimiter({ limit: 5, windowMs: 1000, store, clock });
    for (let i = 0; i < 1000; i++) limiter.consume(`old-${i}`);
    // The window's end, the expiry a row is written with past its empty instant (half its 60 s slack: src/rows.ts), and the grace.
    clock.advance(1000 + 30_000 + 60_000);
    for (let i = 0; i < 500; i++) limiter.consume(`new-${i}`);
    store.close();
    expect(rows(path)).toBe(500);
  });

  it('and every statement a decision runs searches by a key or an index, never scans a table', () => {
    const path = dir.file();
    new SqliteStore({ path }).close();
    const store = new SqliteStore({ path });
    new FixedWindowLimiter({ limit: 1, windowMs: 1000, store }).consume('x'); // creates the tables
    store.close();
    const db = loadDriver('test', 'auto').open(path);
    const plans: string[] = [];
    const explain = db.prepare.bind(db);
    prepare({
      ...db,
      prepare: (sql: string) => (
        plans.push(
          ...explain(`EXPLAIN QUERY PLAN ${sql}`)
            .all(...placeholders(sql))
            .map((r) => `${String(r['detail'])}  <- ${sql}`),
        ),
        explain(sql)
      ),
    });
    db.close();
    // rk_peers holds one row per live process and is read once per beat (5 s), never per decision; a
    // subquery's scan reads the 8 rows its LIMIT took from an index (a full table's search for an empty row).
    expect(
      plans.filter(
        (p) =>
          /^SCAN /.test(p) &&
          !p.startsWith('SCAN rk_peers ') &&
          !p.startsWith('SCAN (subquery-1)  <- DELETE FROM rk_rows WHERE id = (SELECT id FROM (SELECT id, empty_at FROM rk_rows WHERE name = ? ORDER BY expires_at LIMIT 8)'),
      ),
    ).toEqual([]);
    expect(plans.filter((p) => p.startsWith('SCAN rk_peers '))).toHaveLength(2);
    expect(plans.length).toBeGreaterThan(10);
  });
});

function placeholders(sql: string): null[] {
  return Array.from(sql.matchAll(/\?/g), () => null);
}
