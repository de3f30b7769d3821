// Section mysql/in-flight: 50 decisions in flight on one mysql2 pool (10 connections), on ONE hot key,
// a fixed window on ratekeeper's MySqlStore (default options: server time, the calls in flight decided together in one
// transaction per batch) beside rate-limiter-flexible's RateLimiterMySQL on the same server (target:
// MySqlStore at least 2× its decisions/s), and a two-member composite on the MySqlStore. 50 loops each
// await a decision and ask the next, as 50 request handlers would. Interleaved rounds of --mysql-ms
// (default 1,000) per contender; the table gives the median decisions/s over --mysql-rounds (default
// 5) with its ~95 % interval and the ratio to rate-limiter-flexible; a RedisStore row (default
// options, a private redis-server) shows the same decisions on Redis in the same run. Quotas are a billion, so every
// decision is an admission and every one writes; after the rounds each contender's count on the
// server is checked against the admissions it answered (both exact, or the run fails).
// Needs MariaDB or MySQL 8 at RATEKEEPER_MYSQL_URL (default mysql://root@127.0.0.1:3306/test).
import { CompositeLimiter, FixedWindowLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { MySqlStore } from '@ratekeeper/mysql';
import mysql from 'mysql2';
import { RateLimiterMySQL } from 'rate-limiter-flexible';
import { flags, intFlag } from '../lib/args.mjs';
import { redisRow } from '../lib/redis-row.mjs';
import { median, medianInterval } from '../lib/stats.mjs';
import { fixed, formatTable } from '../lib/table.mjs';

const LIMIT = 1_000_000_000;
const IN_FLIGHT = 50;
const URL = process.env.RATEKEEPER_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** timeInFlight keeps IN_FLIGHT decisions in flight for `ms` and answers [decisions/s, decisions]. */
async function timeInFlight(decide, ms) {
  const start = performance.now();
  let n = 0;
  const loop = async () => {
    while (performance.now() - start < ms) {
      if (!(await decide())) throw new Error('a decision was denied: the quota is a billion');
      n++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  return [(n * 1000) / (performance.now() - start), n];
}

export async function run(args) {
  const f = flags(args);
  const rounds = intFlag(f, 'mysql-rounds', 5);
  const ms = intFlag(f, 'mysql-ms', 1000);
  const suffix = `${process.pid}`;
  const pools = [];
  const poolOf = () => {
    const p = mysql.createPool({ uri: URL, connectionLimit: 10 });
    pools.push(p);
    return p;
  };
  const table = `rk_bench_${suffix}`;
  const store = new MySqlStore({ client: poolOf(), table });
  const bucket = new FixedWindowLimiter({ limit: LIMIT, windowMs: 1e12, store, name: 'window' });
  const compositeStore = new MySqlStore({ client: poolOf(), table: `${table}_c` });
  const composite = new CompositeLimiter([
    new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1, store: compositeStore, name: 'c-bucket' }),
    new SlidingWindowLimiter({ limit: LIMIT, windowMs: 3_600_000, store: compositeStore, name: 'c-window' }),
  ]);
  const rlfPool = poolOf();
  const rlf = await new Promise((resolve, reject) => {
    const limiter = new RateLimiterMySQL(
      { storeClient: rlfPool, dbName: 'test', tableName: `rlf_bench_${suffix}`, points: LIMIT, duration: 3600, clearExpiredByTimeout: false },
      (error) => (error ? reject(error) : resolve(limiter)),
    );
  });
  const redis = await redisRow();
  const redisWindow = new FixedWindowLimiter({ limit: LIMIT, windowMs: 1e12, store: redis.store, name: 'window' });
  const admitted = [0, 0, 0, 0];
  const rows = [
    ['ratekeeper fixed window, MySqlStore', () => bucket.allow('hot')],
    ['ratekeeper composite (2 members), MySqlStore', () => composite.allow('hot')],
    ['rate-limiter-flexible RateLimiterMySQL', () => rlf.consume('hot').then(() => true)],
    ['ratekeeper fixed window, RedisStore (ioredis, for scale)', () => redisWindow.allow('hot')],
  ];
  const samples = rows.map(() => []);
  const admin = mysql.createPool({ uri: URL, connectionLimit: 1 }).promise();
  try {
    await bucket.peek('warm');
    await composite.peek('warm');
    for (let round = 0; round < rounds; round++) {
      for (const [i, [, decide]] of rows.entries()) {
        const [rate, n] = await timeInFlight(decide, ms);
        samples[i].push(rate);
        admitted[i] += n;
      }
    }
    // Exactness: what the server holds is what was admitted.
    const held = LIMIT - (await bucket.peek('hot', 1)).remaining - 1;
    const rlfHeld = (await rlf.get('hot')).consumedPoints;
    if (held !== admitted[0]) throw new Error(`MySqlStore holds ${held}, admitted ${admitted[0]}`);
    if (rlfHeld !== admitted[2]) throw new Error(`RateLimiterMySQL holds ${rlfHeld}, admitted ${admitted[2]}`);
  } finally {
    for (const t of [table, `${table}_c`]) {
      await admin.query(`DROP TABLE IF EXISTS \`${t}\`, \`${t}_commits\`, \`${t}_peers\``).catch(() => undefined);
      await admin.query(`DROP PROCEDURE IF EXISTS \`${t}_commit\``).catch(() => undefined);
    }
    await admin.query(`DROP TABLE IF EXISTS test.\`rlf_bench_${suffix}\``).catch(() => undefined);
    await admin.end();
    for (const p of pools) await new Promise((resolve) => p.end(resolve));
    redis.close();
  }
  const med = samples.map(median);
  const flexible = med[2];
  const table_ = rows.map(([name], i) => {
    const [lo, hi] = medianInterval(samples[i]);
    return [name, fixed(med[i], 0), `${fixed(lo, 0)}–${fixed(hi, 0)}`, fixed(med[i] / flexible, 2)];
  });
  console.log(`mysql/in-flight: ${IN_FLIGHT} decisions in flight on one pool of 10, one hot key, ${rounds} rounds of ${ms} ms per contender (Node ${process.versions.node})`);
  console.log(formatTable(['contender', 'decisions/s', '~95 % interval', '× rate-limiter-flexible'], table_));
  console.log(
    `exact: both (the server's counts equal the admissions). target: MySqlStore at least 2× RateLimiterMySQL: ${med[0] / flexible >= 2 ? 'met' : 'missed'} (${fixed(med[0] / flexible, 2)}×)`,
  );
}
