/**
 * A load worker, run as a child process by ./workers.ts, under the runtime running the tests (Node, or
 * Bun: its default driver is then bun:sqlite). It builds one limiter per 'setup' message on the built
 * @ratekeeper/sqlite (dist, or a mutant build) with a SqliteStore of DEFAULT options on the given file,
 * resets the burst's key when asked, answers 'ready', and on 'go' makes all its requests back to back
 * (each a synchronous transaction; the concurrency is between the processes), then reports how many
 * were admitted and every failure.
 * Plain JavaScript, so that it starts without a TypeScript loader.
 */
import { CompositeLimiter, ConcurrencyLimiter, FirstRequestWindowLimiter, FixedWindowLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';

const DIST = new URL('../../dist/esm/index.js', import.meta.url).href;

let limiter;
let store;
let requests = [];
let failures = [];
let goAt = 0;

function member(spec) {
  const o = { store };
  if (spec.algorithm === 'token-bucket') return new TokenBucketLimiter({ ...o, capacity: spec.capacity, refillPerSecond: spec.refillPerSecond });
  if (spec.algorithm === 'sliding-window') return new SlidingWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'sliding-log') return new SlidingLogLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'first-request-window') return new FirstRequestWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'concurrency') return new ConcurrencyLimiter({ ...o, limit: spec.limit });
  return new FixedWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
}

async function setup(message) {
  const { SqliteStore } = await import(message.dist ?? DIST);
  store?.close();
  store = new SqliteStore({ path: message.path });
  failures = [];
  // Each failure's reason, and for the first few where it came from (read when a test fails).
  store.on('failure', (info) => {
    if (failures.length >= 3) return failures.push(info.reason);
    const at = `${info.reason} at +${Math.round(performance.now() - goAt)} ms (${info.operation}`;
    failures.push(info.error ? `${at}: ${info.error.stack ?? info.error})` : `${at})`);
  });
  const members = message.members.map(member);
  limiter = members.length === 1 ? members[0] : new CompositeLimiter(members);
  requests = message.requests;
  // One request outside the count opens the file and warms the statements.
  limiter.peek(`warm-${process.pid}`, 1);
  // The burst's key with state that exists, when asked (every worker resets it before the barrier).
  if (message.resetFirst) limiter.reset(requests[0][0]);
}

function go() {
  goAt = performance.now();
  let admitted = 0;
  let failed = 0;
  for (const [key, cost] of requests) {
    const d = limiter.consume(key, cost);
    if (d.allowed) admitted++;
    if (d.failure !== undefined) failed++;
  }
  process.send({ type: 'done', admitted, failed, failures, driver: store.driver });
}

process.on('message', (message) => {
  let run = null;
  if (message.type === 'setup') run = setup(message).then(() => process.send({ type: 'ready' }));
  else if (message.type === 'go') run = Promise.resolve().then(go);
  else if (message.type === 'exit') {
    store?.close();
    process.exit(0);
  }
  run?.catch((error) => process.send({ type: 'error', message: String(error?.stack ?? error) }));
});

// A worker never outlives its parent.
process.on('disconnect', () => process.exit(0));
