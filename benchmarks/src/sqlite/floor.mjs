// Section sqlite/floor: a lone call (one decision at a time, each awaited as a handler awaits it) on
// keys spread over 1,000 and over 10,000 (issue 31), beside the one-statement floor: the simplest
// exact hand-written limiter on one SQLite file, a token bucket in one `INSERT … ON CONFLICT … DO
// UPDATE … WHERE … RETURNING` per decision on better-sqlite3 (WAL, synchronous NORMAL, the store's
// settings); ratekeeper's SqliteStore with default options (a token bucket); and rate-limiter-flexible
// 11.4's RateLimiterSQLite on better-sqlite3 (WAL). Every contender has its own file in a fresh
// temporary directory, every key decided once before the clock starts (the table holds them all).
// Interleaved rounds (`--sqlite-rounds`, default 3) of `--sqlite-ms` (default 1,000) per contender and
// key count; each call timed alone. The table gives p50 and p99 over all rounds' calls, the
// throughput (calls / time, median of the rounds) and each p50 as a multiple of the floor's. Quotas
// are a billion, so every decision admits and every one writes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenBucketLimiter } from '@ratekeeper/core';
import { SqliteStore } from '@ratekeeper/sqlite';
import Database from 'better-sqlite3';
import { RateLimiterSQLite } from 'rate-limiter-flexible';
import { flags, intFlag } from '../lib/args.mjs';
import { median, quantile } from '../lib/stats.mjs';
import { fixed, formatTable, grouped } from '../lib/table.mjs';

const LIMIT = 1_000_000_000;
const KEY_COUNTS = [1_000, 10_000];

/** floorLimiter: a token bucket of `capacity` refilled at `perSecond`, one statement per decision. */
function floorLimiter(path, capacity, perSecond) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE bucket (k TEXT PRIMARY KEY, tokens REAL NOT NULL, at REAL NOT NULL) WITHOUT ROWID');
  const refill = '(excluded.at - at) * @rate / 1000';
  const take = db.prepare(
    `INSERT INTO bucket (k, tokens, at) VALUES (@k, @cap - 1, @now) ON CONFLICT (k) DO UPDATE SET tokens = min(@cap, tokens + ${refill}) - 1, at = excluded.at WHERE min(@cap, tokens + ${refill}) >= 1 RETURNING tokens`,
  );
  const args = { k: '', cap: capacity, now: 0, rate: perSecond };
  return {
    allow(key) {
      args.k = key;
      args.now = Date.now();
      return take.get(args) !== undefined;
    },
    close: () => db.close(),
  };
}

async function rlfLimiter(path) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const limiter = await new Promise((resolve, reject) => {
    const made = new RateLimiterSQLite({ storeClient: db, storeType: 'better-sqlite3', tableName: 'rlf', points: LIMIT, duration: 3600 }, (error) =>
      error ? reject(error) : resolve(made),
    );
  });
  return { allow: (key) => limiter.consume(key).then(() => true), close: () => db.close() };
}

/** measure decides on random keys for `ms`, one call at a time, pushing each call's µs into `times`; answers calls/s. */
async function measure(allow, keys, ms, times) {
  const start = performance.now();
  let n = 0;
  let now = start;
  while (now - start < ms) {
    const key = keys[(Math.random() * keys.length) | 0];
    const before = performance.now();
    const allowed = allow(key);
    if (!(allowed === true || (await allowed) === true)) throw new Error('a decision was denied: the quota is a billion');
    now = performance.now();
    times.push((now - before) * 1000);
    n++;
  }
  return (n * 1000) / (now - start);
}

export async function run(args) {
  const f = flags(args);
  const rounds = intFlag(f, 'sqlite-rounds', 3);
  const ms = intFlag(f, 'sqlite-ms', 1000);
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-floor-'));
  const closers = [];
  const rows = [];
  try {
    for (const count of KEY_COUNTS) {
      const keys = Array.from({ length: count }, (_, i) => `user:${i}`);
      const file = (name) => join(dir, `${name}-${count}.sqlite`);
      const floor = floorLimiter(file('floor'), LIMIT, 1);
      const store = new SqliteStore({ path: file('ratekeeper') });
      const bucket = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1, store });
      const rlf = await rlfLimiter(file('rlf'));
      closers.push(floor.close, () => store.close(), rlf.close);
      const contenders = [
        ['floor: one INSERT … ON CONFLICT … RETURNING', (key) => floor.allow(key)],
        ['ratekeeper token bucket, SqliteStore', (key) => bucket.allow(key)],
        ['rate-limiter-flexible RateLimiterSQLite', (key) => rlf.allow(key)],
      ];
      for (const [, allow] of contenders) for (const key of keys) await allow(key);
      const times = contenders.map(() => []);
      const rates = contenders.map(() => []);
      for (let round = 0; round < rounds; round++) {
        for (const [i, [, allow]] of contenders.entries()) rates[i].push(await measure(allow, keys, ms, times[i]));
      }
      const floorP50 = quantile(times[0], 0.5);
      for (const [i, [name]] of contenders.entries()) {
        const p50 = quantile(times[i], 0.5);
        rows.push([grouped(count), name, fixed(p50, 1), fixed(quantile(times[i], 0.99), 1), grouped(median(rates[i])), fixed(p50 / floorP50, 2)]);
      }
    }
  } finally {
    for (const close of closers) close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`sqlite/floor: a lone call on keys spread over 1,000 and 10,000, ${rounds} rounds of ${ms} ms per contender (Node ${process.versions.node})`);
  console.log(formatTable(['keys', 'contender', 'p50 µs', 'p99 µs', 'calls/s', 'p50 × floor'], rows));
}
