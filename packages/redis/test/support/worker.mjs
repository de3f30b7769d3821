/**
 * A load worker, run as a child process by ./workers.ts. It builds one limiter per `setup` message
 * (on the built @ratekeeper/redis, the store under test or a mutant, with its own connection and an
 * optionally skewed clock), resets the burst's key when asked, answers 'ready', and on 'go' fires all
 * its requests at once, then reports how many were admitted, their cost per key, and every failure.
 * Plain JavaScript, so that it starts without a TypeScript loader.
 *
 * Busy processes: with `busy.handlerMs` every admitted request runs a handler that burns that much CPU
 * synchronously as its decision arrives (an application doing its work: one batch reply of admitted
 * requests blocks the event loop for their sum); with `busy.sliceMs` the process also burns CPU in
 * slices of that length, one per turn of its event loop, while its requests are out.
 *
 * Cold starts: `warm: 'peek'` makes the store's first call a peek on another key (the first call
 * connects, loads the script and learns the server's clock), and a 'cold-burst' message does
 * everything at once in a process that has just started: connect without waiting, build the store and
 * fire the burst, as a process of a rolling restart meets traffic that is already arriving.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CompositeLimiter, ConcurrencyLimiter, FirstRequestWindowLimiter, FixedWindowLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { clientTimeStore } from '../mutants/client-time-store.mjs';
import { GetThenSetStore } from '../mutants/get-then-set-store.mjs';
import { issueTimeClient } from '../mutants/issue-time-client.mjs';
import { forgetfulLeaseClient, overspendingLeaseClient } from '../mutants/lease-clients.mjs';
import { parallelUnion } from '../mutants/parallel-union.mjs';
import { snapshotBatchClient } from '../mutants/snapshot-batch-client.mjs';

const DIST = new URL('../../dist/esm/index.js', import.meta.url).href;

let limiter;
let store;
let failures = [];
let requests = [];
let busy;
let redis;
const clients = [];
const connections = new Map();

/** connect keeps one connection per client kind and port across setups. */
function connect(kind, port, wait = true) {
  const id = `${kind}:${port}`;
  if (!connections.has(id)) connections.set(id, open(kind, port, wait));
  return connections.get(id);
}

async function open(kind, port, wait) {
  if (kind === 'ioredis') {
    const client = new Redis({ port, host: '127.0.0.1' });
    client.on('error', () => {});
    if (wait) await client.ping();
    clients.push(() => client.disconnect());
    return client;
  }
  const client = createClient({ socket: { port, host: '127.0.0.1' } });
  client.on('error', () => {});
  const connecting = client.connect();
  if (wait) await connecting;
  else connecting.catch(() => {});
  clients.push(() => client.destroy());
  return client;
}

/**
 * slowStart wraps a client so that no reply arrives until `ms` after its first command (a connection
 * that takes that long to come up, on a busy machine or behind a slow network), while Redis itself is
 * healthy; replies keep their order.
 */
function slowStart(client, ms) {
  let openAt;
  const delay = (reply) => {
    openAt ??= performance.now() + ms;
    const wait = openAt - performance.now();
    if (wait <= 0) return reply;
    const held = reply.then(
      (value) => () => value,
      (error) => () => Promise.reject(error),
    );
    return new Promise((resolve) => setTimeout(resolve, wait)).then(() => held).then((settle) => settle());
  };
  if (typeof client.call === 'function') return { call: (...args) => delay(client.call(...args)) };
  return { sendCommand: (args) => delay(client.sendCommand(args)) };
}

function options(setup) {
  const o = { prefix: setup.prefix };
  for (const name of ['timeoutMs', 'batch', 'fallbackDivisor']) if (setup[name] !== undefined) o[name] = setup[name];
  return o;
}

function makeStore(setup, client) {
  const { RedisStore } = redis;
  if (setup.store === 'get-then-set') return new GetThenSetStore(client, setup.prefix);
  if (setup.store === 'client-time') return clientTimeStore(RedisStore, client, setup.prefix);
  if (setup.store === 'snapshot-batch') return new RedisStore({ ...options(setup), client: snapshotBatchClient(client) });
  if (setup.store === 'overspending-lease') return new RedisStore({ client: overspendingLeaseClient(client), prefix: setup.prefix });
  if (setup.store === 'forgetful-lease') return new RedisStore({ client: forgetfulLeaseClient(client), prefix: setup.prefix });
  // The store under test (and a mutant build of it, see ./mutant-builds.ts) runs with its default options.
  const made =
    setup.store === 'issue-time'
      ? // Batching off: the burst as it was before issue 7, 16,000 single scripts in Redis's queue,
        // so the mutant's issue-time timeout fires on a run as fast as this machine can make it.
        // The undivided fallback, too: each process then admits the whole limit, as before issue 16.
        new RedisStore({ client: issueTimeClient(client, 50), prefix: setup.prefix, batch: false, fallbackDivisor: 1 })
      : new RedisStore({ ...options(setup), client: setup.slowStartMs === undefined ? client : slowStart(client, setup.slowStartMs) });
  made.on('failure', (info) => failures.push(info.reason));
  return made;
}

function member(spec, on, clock) {
  const o = { store: on, clock };
  if (spec.algorithm === 'token-bucket') return new TokenBucketLimiter({ ...o, capacity: spec.capacity, refillPerSecond: spec.refillPerSecond });
  if (spec.algorithm === 'sliding-window') return new SlidingWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'sliding-log') return new SlidingLogLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'first-request-window') return new FirstRequestWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'concurrency') return new ConcurrencyLimiter({ ...o, limit: spec.limit });
  return new FixedWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
}

async function build(message, wait) {
  redis = await import(message.dist ?? DIST);
  const client = await connect(message.client, message.port, wait);
  store = makeStore(message, client);
  const skew = message.skewMs;
  const clock = { now: () => Date.now() + skew };
  const members = message.members.map((spec) => member(spec, store, clock));
  if (members.length === 1) limiter = message.lease === undefined ? members[0] : new redis.LeasedLimiter(members[0], message.lease);
  else limiter = message.composite === 'parallel-union' ? parallelUnion(members) : new CompositeLimiter(members);
  requests = message.requests;
  busy = message.busy;
  failures = [];
}

async function setup(message) {
  await build(message, true);
  // One request outside the count warms the connection and the script cache (a peek on another key
  // leaves the first decisions of the burst to a store that has made one call).
  if (message.warm === 'peek') await limiter.peek(`other-${process.pid}`, 1);
  else await limiter.consume(`warm-${process.pid}`, 1);
  // The burst's key with state that exists, when asked (every worker resets it before the barrier).
  if (message.resetFirst) await limiter.reset(requests[0][0]);
}

function burn(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

async function go() {
  // A leased limiter's units out of each requested key's bucket (held, or being taken), sampled at
  // every decision; the most for any one key.
  let maxHeld = 0;
  const keys = [...new Set(requests.map(([key]) => key))];
  const leased = redis.LeasedLimiter;
  const handlerMs = busy?.handlerMs ?? 0;
  let slowestMs = 0;
  // The process's own lateness during the burst: the sum of every delay of a 10 ms timer (the time
  // this process could not run, whether its own work or a machine that left it off the CPU).
  const lateness = monitorEventLoopDelay({ resolution: 10 });
  lateness.enable();
  const sample = (d) => {
    if (limiter instanceof leased) for (const key of keys) maxHeld = Math.max(maxHeld, limiter.held(key));
    if (d?.allowed && handlerMs > 0) burn(handlerMs);
    return d;
  };
  let spinning = (busy?.sliceMs ?? 0) > 0;
  const spin = () => {
    if (!spinning) return;
    burn(busy.sliceMs);
    setImmediate(spin);
  };
  if (spinning) setImmediate(spin);
  const decisions = await Promise.all(
    requests.map(([key, cost]) => {
      const sentAt = performance.now();
      return limiter.consume(key, cost).then((d) => {
        slowestMs = Math.max(slowestMs, performance.now() - sentAt);
        return sample(d);
      });
    }),
  );
  spinning = false;
  lateness.disable();
  const lateMs = (lateness.count * lateness.mean) / 1e6;
  sample();
  // Lease mode: every unit still held goes back before the report (the ledger the test checks).
  if (limiter instanceof leased) await limiter.close();
  const admittedCost = {};
  let admitted = 0;
  decisions.forEach((d, i) => {
    if (!d.allowed) return;
    admitted++;
    const [key, cost] = requests[i];
    admittedCost[key] = (admittedCost[key] ?? 0) + cost;
  });
  const failed = decisions.filter((d) => d.failure !== undefined).length;
  process.send({ type: 'done', admitted, admittedCost, failed, failures, maxHeld, slowestMs, lateMs, leasing: store?.leasing ?? null });
}

process.on('message', (message) => {
  let run = null;
  if (message.type === 'setup') run = setup(message).then(() => process.send({ type: 'ready' }));
  else if (message.type === 'go') run = go();
  else if (message.type === 'cold-burst') run = build(message, false).then(go);
  else if (message.type === 'peers') process.send({ type: 'peers', peers: store.peers });
  else if (message.type === 'exit') {
    for (const close of clients) close();
    process.exit(0);
  }
  run?.catch((error) => process.send({ type: 'error', message: String(error?.stack ?? error) }));
});

// A worker never outlives its parent.
process.on('disconnect', () => process.exit(0));
