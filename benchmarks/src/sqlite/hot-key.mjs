// Section sqlite/hot-key: the cost of one decision on ONE hot key in one process, ratekeeper's
// SqliteStore (one immediate transaction per decision on a WAL file, default options) beside the same
// token bucket on the MemoryStore (the target: within 5×) and rate-limiter-flexible's
// RateLimiterSQLite on better-sqlite3 (target: SqliteStore at least 2× its decisions/s), and a
// two-member composite on the SqliteStore (both members in one transaction). Each contender has its
// own file in a fresh temporary directory. Interleaved rounds: in each round every contender decides
// for --sqlite-ms (default 300) back to back (rate-limiter-flexible awaits each promise: one decision in
// flight, as a request handler awaits it); the table gives the median µs per decision over
// --sqlite-rounds (default 7) with its ~95 % interval and the ratios of the medians. Quotas are a
// billion, so every decision is an admission and every one writes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompositeLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { SqliteStore } from '@ratekeeper/sqlite';
import Database from 'better-sqlite3';
import { RateLimiterSQLite } from 'rate-limiter-flexible';
import { flags, intFlag } from '../lib/args.mjs';
import { median, medianInterval } from '../lib/stats.mjs';
import { fixed, formatTable } from '../lib/table.mjs';

const LIMIT = 1_000_000_000;

/** timeSync runs `decide` back to back for `ms` and answers µs per decision. */
function timeSync(decide, ms) {
  const start = performance.now();
  let n = 0;
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 100; i++) if (!decide()) throw new Error('a decision was denied: the quota is a billion');
    n += 100;
    now = performance.now();
  }
  return ((now - start) * 1000) / n;
}

async function timeAsync(decide, ms) {
  const start = performance.now();
  let n = 0;
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 100; i++) await decide();
    n += 100;
    now = performance.now();
  }
  return ((now - start) * 1000) / n;
}

export async function run(args) {
  const f = flags(args);
  const rounds = intFlag(f, 'sqlite-rounds', 7);
  const ms = intFlag(f, 'sqlite-ms', 300);
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-sqlite-'));
  const stores = [];
  const store = (name) => {
    const s = new SqliteStore({ path: join(dir, `${name}.sqlite`) });
    stores.push(s);
    return s;
  };
  const memory = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1 });
  const sqlite = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1, store: store('bucket') });
  const both = store('composite');
  const composite = new CompositeLimiter([
    new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1, store: both }),
    new SlidingWindowLimiter({ limit: LIMIT, windowMs: 60_000, store: both }),
  ]);
  const db = new Database(join(dir, 'rlf.sqlite'));
  db.pragma('journal_mode = WAL');
  const rlf = await new Promise((resolve, reject) => {
    const limiter = new RateLimiterSQLite({ storeClient: db, storeType: 'better-sqlite3', tableName: 'rlf', points: LIMIT, duration: 3600 }, (error) =>
      error ? reject(error) : resolve(limiter),
    );
  });
  const rows = [
    ['ratekeeper token bucket, MemoryStore', () => timeSync(() => memory.allow('hot'), ms)],
    ['ratekeeper token bucket, SqliteStore', () => timeSync(() => sqlite.allow('hot'), ms)],
    ['ratekeeper composite (2 members), SqliteStore', () => timeSync(() => composite.allow('hot'), ms)],
    ['rate-limiter-flexible RateLimiterSQLite (better-sqlite3)', () => timeAsync(() => rlf.consume('hot'), ms)],
  ];
  const samples = rows.map(() => []);
  try {
    for (let round = 0; round < rounds; round++) for (const [i, [, measure]] of rows.entries()) samples[i].push(await measure());
  } finally {
    for (const s of stores) s.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const med = samples.map(median);
  const [mem, lite, , flexible] = med;
  const table = rows.map(([name], i) => {
    const [lo, hi] = medianInterval(samples[i]);
    return [name, fixed(med[i], 2), `${fixed(lo, 2)}–${fixed(hi, 2)}`, fixed(1e6 / med[i], 0), fixed(med[i] / mem, 1), fixed(flexible / med[i], 2)];
  });
  console.log(`sqlite/hot-key: one hot key, one process, ${rounds} rounds of ${ms} ms per contender (Node ${process.versions.node})`);
  console.log(formatTable(['contender', 'µs/decision', '~95 % interval', 'decisions/s', '× MemoryStore time', '× rate-limiter-flexible speed'], table));
  console.log(
    `targets: SqliteStore within 5× the MemoryStore: ${lite / mem <= 5 ? 'met' : 'missed'} (${fixed(lite / mem, 1)}×); at least 2× rate-limiter-flexible's SQLite store: ${flexible / lite >= 2 ? 'met' : 'missed'} (${fixed(flexible / lite, 2)}×)`,
  );
}
