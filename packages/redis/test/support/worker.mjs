/**
 * A load worker, run as a child process by ./workers.ts. It builds one limiter per `setup` message
 * (on the built @ratekeeper/redis, the store under test or a mutant, with its own connection and an
 * optionally skewed clock), answers 'ready', and on 'go' fires all its requests at once, then reports
 * how many were admitted, their cost per key, and every failure. Plain JavaScript, so that it starts
 * without a TypeScript loader.
 */
import { CompositeLimiter, FixedWindowLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { LeasedLimiter, RedisStore } from '../../dist/esm/index.js';
import { clientTimeStore } from '../mutants/client-time-store.mjs';
import { GetThenSetStore } from '../mutants/get-then-set-store.mjs';
import { issueTimeClient } from '../mutants/issue-time-client.mjs';
import { forgetfulLeaseClient, overspendingLeaseClient } from '../mutants/lease-clients.mjs';
import { parallelUnion } from '../mutants/parallel-union.mjs';
import { snapshotBatchClient } from '../mutants/snapshot-batch-client.mjs';

let limiter;
let store;
let failures = [];
let requests = [];
const clients = [];
const connections = new Map();

/** connect keeps one connection per client kind and port across setups. */
function connect(kind, port) {
  const id = `${kind}:${port}`;
  if (!connections.has(id)) connections.set(id, open(kind, port));
  return connections.get(id);
}

async function open(kind, port) {
  if (kind === 'ioredis') {
    const client = new Redis({ port, host: '127.0.0.1' });
    await client.ping();
    clients.push(() => client.disconnect());
    return client;
  }
  const client = createClient({ socket: { port, host: '127.0.0.1' } });
  client.on('error', () => {});
  await client.connect();
  clients.push(() => client.destroy());
  return client;
}

function makeStore(setup, client) {
  if (setup.store === 'get-then-set') return new GetThenSetStore(client, setup.prefix);
  if (setup.store === 'client-time') return clientTimeStore(RedisStore, client, setup.prefix);
  if (setup.store === 'snapshot-batch') {
    return new RedisStore({ client: snapshotBatchClient(client), prefix: setup.prefix, ...(setup.timeoutMs === undefined ? {} : { timeoutMs: setup.timeoutMs }) });
  }
  if (setup.store === 'overspending-lease') return new RedisStore({ client: overspendingLeaseClient(client), prefix: setup.prefix });
  if (setup.store === 'forgetful-lease') return new RedisStore({ client: forgetfulLeaseClient(client), prefix: setup.prefix });
  // The store under test runs with its default options: timeoutMs 50, onFailure 'fallback'.
  const store =
    setup.store === 'issue-time'
      ? // Batching off: the burst as it was before issue 7, 16,000 single scripts in Redis's queue,
        // so the mutant's issue-time timeout fires on a run as fast as this machine can make it.
        new RedisStore({ client: issueTimeClient(client, 50), prefix: setup.prefix, batch: false })
      : new RedisStore({
          client,
          prefix: setup.prefix,
          ...(setup.timeoutMs === undefined ? {} : { timeoutMs: setup.timeoutMs }),
          ...(setup.batch === undefined ? {} : { batch: setup.batch }),
        });
  store.on('failure', (info) => failures.push(info.reason));
  return store;
}

function member(spec, store, clock) {
  const o = { store, clock };
  if (spec.algorithm === 'token-bucket') return new TokenBucketLimiter({ ...o, capacity: spec.capacity, refillPerSecond: spec.refillPerSecond });
  if (spec.algorithm === 'sliding-window') return new SlidingWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'sliding-log') return new SlidingLogLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  return new FixedWindowLimiter({ ...o, limit: spec.limit, windowMs: spec.windowMs });
}

async function setup(message) {
  const client = await connect(message.client, message.port);
  store = makeStore(message, client);
  const skew = message.skewMs;
  const clock = { now: () => Date.now() + skew };
  const members = message.members.map((spec) => member(spec, store, clock));
  if (members.length === 1) limiter = message.lease === undefined ? members[0] : new LeasedLimiter(members[0], message.lease);
  else limiter = message.composite === 'parallel-union' ? parallelUnion(members) : new CompositeLimiter(members);
  requests = message.requests;
  failures = [];
  // One request outside the count warms the connection and the script cache.
  await limiter.consume(`warm-${process.pid}`, 1);
}

async function go() {
  // A leased limiter's units out of each requested key's bucket (held, or being taken), sampled at
  // every decision; the most for any one key.
  let maxHeld = 0;
  const keys = [...new Set(requests.map(([key]) => key))];
  const sample = (d) => {
    if (limiter instanceof LeasedLimiter) for (const key of keys) maxHeld = Math.max(maxHeld, limiter.held(key));
    return d;
  };
  const decisions = await Promise.all(requests.map(([key, cost]) => limiter.consume(key, cost).then(sample)));
  sample();
  // Lease mode: every unit still held goes back before the report (the ledger the test checks).
  if (limiter instanceof LeasedLimiter) await limiter.close();
  const admittedCost = {};
  let admitted = 0;
  decisions.forEach((d, i) => {
    if (!d.allowed) return;
    admitted++;
    const [key, cost] = requests[i];
    admittedCost[key] = (admittedCost[key] ?? 0) + cost;
  });
  const failed = decisions.filter((d) => d.failure !== undefined).length;
  process.send({ type: 'done', admitted, admittedCost, failed, failures, maxHeld, leasing: store?.leasing ?? null });
}

process.on('message', (message) => {
  const run = message.type === 'setup' ? setup(message).then(() => process.send({ type: 'ready' })) : message.type === 'go' ? go() : null;
  if (message.type === 'exit') {
    for (const close of clients) close();
    process.exit(0);
  }
  run?.catch((error) => process.send({ type: 'error', message: String(error?.stack ?? error) }));
});

// A worker never outlives its parent.
process.on('disconnect', () => process.exit(0));
