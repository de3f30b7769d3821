/**
 * A load worker, run as a child process by ./workers.ts. On 'setup' it opens its own client (a pg Pool
 * or a postgres.js sql, DEFAULT options) and a PostgresStore of DEFAULT options on the given table from
 * the built @ratekeeper/postgres (dist, or a mutant build), builds the limiter (behind a BanLimiter
 * when given `banMs`), warms the connection and answers 'ready'; on 'go' it makes all its requests at
 * once (every call in flight together, as a burst reaches a server) and reports how many were
 * admitted, the least and greatest retryAfterMs of its denials, and every failure. Plain JavaScript, so
 * that it starts without a TypeScript loader.
 */
import {
  BanLimiter,
  CompositeLimiter,
  ConcurrencyLimiter,
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
} from '@ratekeeper/core';
import pg from 'pg';
import postgres from 'postgres';

const DIST = new URL('../../dist/esm/index.js', import.meta.url).href;
const PG = { host: '127.0.0.1', port: 5432, user: 'root', database: 'test' };

let limiter;
let store;
let requests = [];
let failures = [];
let goAt = 0;
let end = async () => {};

function member(spec) {
  const o = { store };
  if (spec.algorithm === 'token-bucket') return new TokenBucketLimiter({ ...o, capacity: spec.capacity, refillPerSecond: spec.refillPerSecond });
  if (spec.algorithm === 'sliding-window') return new SlidingWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'sliding-log') return new SlidingLogLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'first-request-window') return new FirstRequestWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'concurrency') return new ConcurrencyLimiter({ ...o, limit: spec.limit });
  return new FixedWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
}

function client(kind, port, appName) {
  if (kind === 'postgres') {
    const sql = postgres({ host: PG.host, port, username: PG.user, database: PG.database, onnotice: () => {}, connection: { application_name: appName } });
    return { client: sql, end: () => sql.end({ timeout: 1 }) };
  }
  const pool = new pg.Pool({ ...PG, port, application_name: appName });
  // A pooled connection killed while idle emits 'error' on the pool: without a listener it would crash the process.
  pool.on('error', () => {});
  return { client: pool, end: () => pool.end() };
}

async function setup(message) {
  const { PostgresStore } = await import(message.dist ?? DIST);
  await end();
  const made = client(message.client, message.port ?? PG.port, message.appName ?? 'ratekeeper-test');
  end = made.end;
  // The previous store's failures (a lease renewal on its ended pool) are not this setup's.
  store?.removeAllListeners('failure');
  store = new PostgresStore({ client: made.client, table: message.table });
  failures = [];
  // Each failure's reason; the first few also say when (ms after 'go') and where they came from (read when a test fails).
  store.on('failure', (info) => {
    if (failures.length >= 3) return failures.push(info.reason);
    const pool = message.client === 'pg' ? made.client : undefined;
    const held = pool === undefined ? '' : `; pool ${pool.totalCount} open, ${pool.idleCount} idle, ${pool.waitingCount} waiting`;
    const at = `${info.reason} at +${Math.round(performance.now() - goAt)} ms (${info.operation}${held}`;
    failures.push(info.error ? `${at}: ${info.error.stack ?? info.error})` : `${at})`);
  });
  const members = message.members.map(member);
  limiter = members.length === 1 ? members[0] : new CompositeLimiter(members);
  if (message.banMs !== undefined) limiter = new BanLimiter({ limiter, banMs: message.banMs });
  requests = message.requests;
  // Requests outside the count learn the server's clock, create the table and open connections.
  await Promise.all(Array.from({ length: 8 }, (_, i) => limiter.peek(`warm-${process.pid}-${i}`, 1)));
  // An existing row (empty state) for the burst's key, when asked: the burst then starts on a row every process can read at once.
  if (message.resetFirst) await limiter.reset(requests[0][0]);
}

async function go() {
  goAt = performance.now();
  const decisions = await Promise.all(requests.map(([key, cost]) => limiter.consume(key, cost)));
  const admitted = decisions.filter((d) => d.allowed).length;
  const failed = decisions.filter((d) => d.failure !== undefined).length;
  const waits = decisions.filter((d) => !d.allowed).map((d) => d.retryAfterMs);
  const denied = waits.length === 0 ? null : { least: Math.min(...waits), most: Math.max(...waits) };
  process.send({ type: 'done', admitted, failed, failures, batching: store.batching, denied });
}

process.on('message', (message) => {
  let run = null;
  if (message.type === 'setup') run = setup(message).then(() => process.send({ type: 'ready' }));
  else if (message.type === 'go') run = go();
  else if (message.type === 'exit') {
    void end().finally(() => process.exit(0));
  }
  run?.catch((error) => process.send({ type: 'error', message: String(error?.stack ?? error) }));
});

// A worker never outlives its parent.
process.on('disconnect', () => process.exit(0));
