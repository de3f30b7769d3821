// An outage that announces itself, on the SQL stores: the database refusing connections (nothing
// listens on the port) and a pool the application has ended, with the clients as the READMEs make them
// (pg `new Pool(...)` with an 'error' listener, postgres.js `postgres(url)`, mysql2/promise
// `createPool(...)`) and the stores' default options. Requests arrive at a steady rate (open loop)
// from the very first; prints the decision latency (p50, p99, max, how many above 50 ms).
//
//   node benchmarks/src/outage-sql.mjs [--rate 100] [--seconds 2]
import { TokenBucketLimiter } from '@ratekeeper/core';
import { MySqlStore } from '@ratekeeper/mysql';
import { PostgresStore } from '@ratekeeper/postgres';
import mysql from 'mysql2/promise';
import pg from 'pg';
import postgres from 'postgres';
import { quantile } from './lib/stats.mjs';
import { freePort } from './redis/_server.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const RATE = arg('rate', 100);
const SECONDS = arg('seconds', 2);
const noop = () => {};

const port = await freePort();
const pgPool = (url) => {
  const pool = new pg.Pool({ connectionString: url });
  pool.on('error', noop);
  return pool;
};
const refusedPg = `postgres://root@127.0.0.1:${port}/test`;
const refusedMy = `mysql://root@127.0.0.1:${port}/test`;
/** ended makes a store on a working pool, decides once on it, then ends the pool (an application shutting down). */
const ended = (client, Store, end) => async () => {
  const store = new Store({ client });
  store.on('failure', noop);
  await new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, store, name: 'outage-warm' }).consume('warm');
  await end(client);
  return store;
};

const cases = [
  ['pg Pool, refused', async () => new PostgresStore({ client: pgPool(refusedPg) })],
  ['postgres.js, refused', async () => new PostgresStore({ client: postgres(refusedPg, { onnotice: noop }) })],
  ['mysql2 pool, refused', async () => new MySqlStore({ client: mysql.createPool({ uri: refusedMy, connectionLimit: 10 }) })],
  ['pg Pool, ended', ended(pgPool('postgres://root@127.0.0.1:5432/test'), PostgresStore, (c) => c.end())],
  ['postgres.js, ended', ended(postgres('postgres://root@127.0.0.1:5432/test', { onnotice: noop }), PostgresStore, (c) => c.end())],
  ['mysql2 pool, ended', ended(mysql.createPool({ uri: 'mysql://root@127.0.0.1:3306/test', connectionLimit: 10 }), MySqlStore, (c) => c.end())],
];

console.log(`SQL stores with the database refusing connections or the pool ended, ${SECONDS} s at ${RATE} requests/s; default options (timeoutMs 1000)`);
console.log('case                  | decisions | p50 ms | p99 ms | max ms | > 50 ms | not fallback');
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
for (const [name, make] of cases) {
  const store = await make();
  store.on('failure', noop);
  const limiter = new TokenBucketLimiter({ capacity: 1_000_000, refillPerSecond: 1000, store, name: `outage-${name.replace(/\W+/g, '-')}` });
  const samples = [];
  const every = 1000 / RATE;
  const began = performance.now();
  let next = began;
  while (performance.now() - began < SECONDS * 1000) {
    const start = performance.now();
    const sample = { start, end: Number.POSITIVE_INFINITY, failure: 'pending' };
    samples.push(sample);
    void limiter.consume(`user-${samples.length % 50}`).then((d) => {
      sample.end = performance.now();
      sample.failure = d.failure;
    });
    next += every;
    const wait = next - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await new Promise((resolve) => setTimeout(resolve, 3500));
  const latencies = samples.map((s) => s.end - s.start);
  const notFallback = samples.filter((s) => s.failure !== 'fallback').length;
  console.log(
    `${name.padEnd(21)} | ${String(samples.length).padStart(9)} | ${fmt(quantile(latencies, 0.5)).padStart(6)} | ${fmt(quantile(latencies, 0.99)).padStart(6)} | ${fmt(Math.max(...latencies)).padStart(6)} | ${String(latencies.filter((l) => l > 50).length).padStart(7)} | ${notFallback}`,
  );
}
process.exit(0);
