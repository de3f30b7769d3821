// Section postgres/hot-key: 50 decisions in flight on ONE hot key through one pg Pool (default size,
// 10), ratekeeper's PostgresStore (default options: the calls in flight decided together, one
// transaction per batch) beside rate-limiter-flexible's RateLimiterPostgres on its own Pool (one
// upsert per decision); the target: PostgresStore at least 2× its decisions/s. Each contender
// has its own table (dropped after). Interleaved rounds: in each round every contender keeps 50
// consume() calls in flight for --pg-ms (default 1,000), starting a new one as each resolves; the
// table gives the median decisions/s over --pg-rounds (default 5) with its ~95 % interval and the
// ratio of the medians; a RedisStore row (default options, a private redis-server) shows the same
// decisions on Redis in the same run. Quotas are a billion, so every decision is an admission and every one writes.
// Needs PostgreSQL on 127.0.0.1:5432 (database test, user root), or PGHOST/PGPORT/PGUSER/PGDATABASE.
import { TokenBucketLimiter } from '@ratekeeper/core';
import { PostgresStore } from '@ratekeeper/postgres';
import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { flags, intFlag } from '../lib/args.mjs';
import { redisRow } from '../lib/redis-row.mjs';
import { median, medianInterval } from '../lib/stats.mjs';
import { fixed, formatTable } from '../lib/table.mjs';

const LIMIT = 1_000_000_000;
const IN_FLIGHT = 50;
const CONNECTION = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'root',
  database: process.env.PGDATABASE ?? 'test',
};

/** rate keeps IN_FLIGHT calls of `decide` in flight for `ms` and answers decisions per second. */
async function rate(decide, ms) {
  const start = performance.now();
  let n = 0;
  const lane = async () => {
    while (performance.now() - start < ms) {
      await decide();
      n++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return (n * 1000) / (performance.now() - start);
}

export async function run(args) {
  const f = flags(args);
  const rounds = intFlag(f, 'pg-rounds', 5);
  const ms = intFlag(f, 'pg-ms', 1000);
  const suffix = `${process.pid}`;
  const ours = new pg.Pool(CONNECTION);
  const theirs = new pg.Pool(CONNECTION);
  for (const pool of [ours, theirs]) pool.on('error', () => {});
  const store = new PostgresStore({ client: ours, table: `rk_bench_${suffix}` });
  const bucket = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1, store });
  const rlf = await new Promise((resolve, reject) => {
    const limiter = new RateLimiterPostgres({ storeClient: theirs, tableName: `rlf_bench_${suffix}`, points: LIMIT, duration: 3600 }, (error) =>
      error ? reject(error) : resolve(limiter),
    );
  });
  const redis = await redisRow();
  const redisBucket = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1, store: redis.store });
  const rows = [
    ['ratekeeper token bucket, PostgresStore (pg Pool)', () => rate(() => bucket.consume('hot'), ms)],
    ['rate-limiter-flexible RateLimiterPostgres (pg Pool)', () => rate(() => rlf.consume('hot'), ms)],
    ['ratekeeper token bucket, RedisStore (ioredis, for scale)', () => rate(() => redisBucket.consume('hot'), ms)],
  ];
  const samples = rows.map(() => []);
  try {
    // Warm both (tables, connections, the server's clock) outside the count.
    for (const [, measure] of rows) await measure();
    for (let round = 0; round < rounds; round++) for (const [i, [, measure]] of rows.entries()) samples[i].push(await measure());
  } finally {
    await ours.query(`DROP TABLE IF EXISTS rk_bench_${suffix}, rk_bench_${suffix}_peers, rlf_bench_${suffix}`);
    await ours.end();
    await theirs.end();
    redis.close();
  }
  const med = samples.map(median);
  const [keeper, flexible] = med;
  const table = rows.map(([name], i) => {
    const [lo, hi] = medianInterval(samples[i]);
    return [name, fixed(med[i], 0), `${fixed(lo, 0)}–${fixed(hi, 0)}`, fixed(med[i] / flexible, 2)];
  });
  console.log(`postgres/hot-key: ${IN_FLIGHT} decisions in flight on one hot key, one process, ${rounds} rounds of ${ms} ms per contender (Node ${process.versions.node})`);
  console.log(formatTable(['contender', 'decisions/s', '~95 % interval', '× rate-limiter-flexible'], table));
  console.log(`target: PostgresStore at least 2× rate-limiter-flexible's Postgres store: ${keeper / flexible >= 2 ? 'met' : 'missed'} (${fixed(keeper / flexible, 2)}×)`);
}
