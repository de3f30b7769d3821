/**
 * A load worker, run as a child process by ./workers.ts. On 'setup' it opens its own mysql2 pool (as
 * `user`, default root) and builds one limiter, or a composite, on the built @ratekeeper/mysql (dist,
 * or a mutant build) with a MySqlStore of DEFAULT options but its table, makes one warm-up call
 * outside the count (the schema, the server's clock), resets the burst's key when asked, and answers
 * 'ready'; on 'go' it makes all its requests at once (as a server's handlers would, each awaiting its
 * own decision) and reports how many were admitted, how many decisions carried a failure mark, and
 * every failure reported.
 * Plain JavaScript, so that it starts without a TypeScript loader.
 */
import { CompositeLimiter, ConcurrencyLimiter, FirstRequestWindowLimiter, FixedWindowLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import mysql from 'mysql2/promise';

const DIST = new URL('../../dist/esm/index.js', import.meta.url).href;

let limiter;
let pool;
let store;
let requests = [];
let failures = [];
let goAt = 0;

function member(store, spec) {
  const o = { store };
  if (spec.algorithm === 'token-bucket') return new TokenBucketLimiter({ ...o, capacity: spec.capacity, refillPerSecond: spec.refillPerSecond });
  if (spec.algorithm === 'sliding-window') return new SlidingWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'sliding-log') return new SlidingLogLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'first-request-window') return new FirstRequestWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'concurrency') return new ConcurrencyLimiter({ ...o, limit: spec.limit });
  return new FixedWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
}

async function setup(message) {
  const { MySqlStore } = await import(message.dist ?? DIST);
  await pool?.end();
  pool = mysql.createPool({ uri: message.url, connectionLimit: 10 });
  // The previous store's failures (a lease renewal on its ended pool) are not this setup's.
  store?.removeAllListeners('failure');
  store = new MySqlStore({ client: pool, table: message.table });
  failures = [];
  // Each failure's reason, and for the first few where it came from (read when a test fails).
  store.on('failure', (info) => {
    if (failures.length >= 3) return failures.push(info.reason);
    const at = `${info.reason} at +${Math.round(performance.now() - goAt)} ms (${info.operation}`;
    failures.push(info.error ? `${at}: ${info.error.stack ?? info.error})` : `${at})`);
  });
  const members = message.members.map((spec) => member(store, spec));
  limiter = members.length === 1 ? members[0] : new CompositeLimiter(members);
  requests = message.requests;
  await limiter.peek(`warm-${process.pid}`, 1);
  // The burst's key with a row that exists, when asked (every worker resets it before the barrier).
  if (message.resetFirst) await limiter.reset(requests[0][0]);
}

async function go() {
  goAt = performance.now();
  const decisions = await Promise.all(requests.map(([key, cost]) => limiter.consume(key, cost)));
  let admitted = 0;
  let failed = 0;
  let admittedByFallback = 0;
  for (const d of decisions) {
    if (d.allowed) admitted++;
    if (d.failure !== undefined) failed++;
    if (d.allowed && d.failure !== undefined) admittedByFallback++;
  }
  process.send({ type: 'done', admitted, failed, admittedByFallback, failures });
}

process.on('message', (message) => {
  let run = null;
  if (message.type === 'setup') run = setup(message).then(() => process.send({ type: 'ready' }));
  else if (message.type === 'go') run = go();
  else if (message.type === 'exit') run = Promise.resolve(pool?.end()).then(() => process.exit(0));
  run?.catch((error) => process.send({ type: 'error', message: String(error?.stack ?? error) }));
});

// A worker never outlives its parent.
process.on('disconnect', () => process.exit(0));
