// The contenders every in-memory section compares, and the one operation row of each that a section
// times or counts. A contender is a factory for one fresh instance (a ratekeeper limiter on its
// MemoryStore, a peer's in-memory store, or the naive reference bucket) plus a way to count the keys
// it holds. An operation row says how one decision is asked for, as a JavaScript expression over the
// instance `c` and the key `k` (see loops.mjs), and whether the decision must come out allowed or
// denied: every timed loop checks that it did, so no row can quietly measure the wrong path.
//
// Limits are set so that the allowed rows are never denied, however long a run lasts: a bucket of a
// billion tokens, a billion per one-minute window. The peers are reached the way their middleware
// reaches them, minus the HTTP layer:
//   - express-rate-limit: `new MemoryStore()`, `init({ windowMs })`, then `increment(key)` (a promise
//     of `{ totalHits, resetTime }`; the middleware compares totalHits with its limit);
//   - @fastify/rate-limit: its LocalStore (store/LocalStore.js, what the plugin builds when no Redis is
//     given), `incr(key, callback, timeWindow, max)`, whose callback runs synchronously; the plugin
//     compares `current` with `max`. Its LRU `cache` option is raised to the key count (default 5000);
//   - rate-limiter-flexible: `new RateLimiterMemory({ points, duration })` and `consume(key)`, a
//     promise that rejects when the key is limited.
import { CompositeLimiter, ConcurrencyLimiter, FixedWindowLimiter, MemoryStore, SlidingLogLimiter, SlidingWindowLimiter, systemClock, TokenBucketLimiter } from '@ratekeeper/core';
import { MemoryStore as ErlMemoryStore } from 'express-rate-limit';
import FastifyLocalStore from '@fastify/rate-limit/store/LocalStore.js';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { NaiveBucket } from './naive-bucket.mjs';

/** LIMIT is the quota of every allowed row: never reached in a run. */
export const LIMIT = 1_000_000_000;
const REFILL_PER_SECOND = 1_000_000;
const WINDOW_MS = 60_000;
/** The sliding log's limit: the shorthand's default (its state is LOG_LIMIT + 1 numbers per key). */
const LOG_LIMIT = 60;

/**
 * contenders maps an id to { label, create(options), size(instance) }. `options.maxKeys` is how many
 * keys the instance must hold without evicting any; `options.clock` (ratekeeper only) replaces
 * systemClock.
 */
export const contenders = {
  naive: {
    label: 'naive Map bucket (reference)',
    create: () => new NaiveBucket(LIMIT, REFILL_PER_SECOND),
    size: (c) => c.buckets.size,
  },
  tokenBucket: {
    label: 'ratekeeper TokenBucketLimiter',
    create: ({ maxKeys, clock = systemClock }) => new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: REFILL_PER_SECOND, clock, store: new MemoryStore({ maxKeys }) }),
    size: (c) => c.binding.size,
  },
  slidingWindow: {
    label: 'ratekeeper SlidingWindowLimiter',
    create: ({ maxKeys, clock = systemClock }) => new SlidingWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, clock, store: new MemoryStore({ maxKeys }) }),
    size: (c) => c.binding.size,
  },
  fixedWindow: {
    label: 'ratekeeper FixedWindowLimiter',
    create: ({ maxKeys, clock = systemClock }) => new FixedWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, clock, store: new MemoryStore({ maxKeys }) }),
    size: (c) => c.binding.size,
  },
  // The log keeps one instant per unit, so its limit is the shorthand's default 60, not a billion. To
  // keep every timed call allowed on a hot key, its window is 60 ms and its clock reads the system
  // clock plus one millisecond per call (the same clock cost as the others, and never more than 60
  // calls in 60 ms). The window's length changes neither the state size nor the work of a decision.
  slidingLog: {
    label: 'ratekeeper SlidingLogLimiter (L=60)',
    create: ({ maxKeys, clock = systemClock }) => {
      let ticks = 0;
      const ticking = { now: () => clock.now() + ++ticks };
      return new SlidingLogLimiter({ limit: LOG_LIMIT, windowMs: LOG_LIMIT, clock: ticking, store: new MemoryStore({ maxKeys }) });
    },
    size: (c) => c.binding.size,
  },
  // A concurrency limit's unit of work is a lease taken and given back (one request's whole cost), so
  // its row times allow + release; its limit is never reached, since every lease returns at once.
  concurrency: {
    label: 'ratekeeper ConcurrencyLimiter (lease + release)',
    create: ({ maxKeys, clock = systemClock }) => new ConcurrencyLimiter({ limit: LIMIT, clock, store: new MemoryStore({ maxKeys }) }),
    size: (c) => c.binding.size,
  },
  composite: {
    label: 'ratekeeper CompositeLimiter (TB + SW)',
    create: ({ maxKeys, clock = systemClock }) => {
      const store = new MemoryStore({ maxKeys });
      return new CompositeLimiter([
        new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: REFILL_PER_SECOND, clock, store }),
        new SlidingWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, clock, store }),
      ]);
    },
    size: (c) => Math.min(...c.members.map((m) => m.binding.size)),
  },
  expressRateLimit: {
    label: 'express-rate-limit MemoryStore',
    create: () => {
      const store = new ErlMemoryStore();
      store.init({ windowMs: WINDOW_MS });
      return store;
    },
    size: (c) => c.current.size + c.previous.size,
  },
  fastifyRateLimit: {
    label: '@fastify/rate-limit LocalStore',
    create: ({ maxKeys }) => fastifyStore(new FastifyLocalStore(false, false, maxKeys)),
    size: (c) => c.store.lru.size,
  },
  rateLimiterFlexible: {
    label: 'rate-limiter-flexible RateLimiterMemory',
    create: () => new RateLimiterMemory({ points: LIMIT, duration: WINDOW_MS / 1000 }),
    size: (c) => c._memoryStorage._storage.size,
  },
  rateLimiterFlexibleDenying: {
    label: 'rate-limiter-flexible RateLimiterMemory', // with 1 point, for the denied path
    create: () => new RateLimiterMemory({ points: 1, duration: WINDOW_MS / 1000 }),
    size: (c) => c._memoryStorage._storage.size,
  },
};

/**
 * fastifyStore wraps a LocalStore so that one call answers allowed-or-not, with one callback made up
 * front (the plugin makes a closure and a promise per request; that cost belongs to the plugin, not to
 * the store measured here).
 */
function fastifyStore(store) {
  let last;
  const callback = (_err, res) => {
    last = res;
  };
  return {
    store,
    incr(key) {
      store.incr(key, callback, WINDOW_MS, LIMIT);
      return last.current <= LIMIT;
    },
  };
}

/**
 * Operation rows. `call` is the expression that asks for one decision; for a sync row it is truthy
 * when allowed; for an async row it is a promise whose fulfilled value passes `allowedIf` (an
 * expression over `v`) when allowed, and which may reject for a denial. `prepare(c, keys)` runs once,
 * before warm-up.
 */
export const operations = [
  { id: 'naive.allow', contender: 'naive', op: 'allow', kind: 'sync', call: 'c.allow(k)', expect: 'allowed' },
  { id: 'tokenBucket.allow', contender: 'tokenBucket', op: 'allow', kind: 'sync', call: 'c.allow(k)', expect: 'allowed' },
  { id: 'tokenBucket.consume', contender: 'tokenBucket', op: 'consume', kind: 'sync', call: 'c.consume(k).allowed', expect: 'allowed' },
  { id: 'slidingWindow.allow', contender: 'slidingWindow', op: 'allow', kind: 'sync', call: 'c.allow(k)', expect: 'allowed' },
  { id: 'slidingWindow.consume', contender: 'slidingWindow', op: 'consume', kind: 'sync', call: 'c.consume(k).allowed', expect: 'allowed' },
  { id: 'fixedWindow.allow', contender: 'fixedWindow', op: 'allow', kind: 'sync', call: 'c.allow(k)', expect: 'allowed' },
  { id: 'fixedWindow.consume', contender: 'fixedWindow', op: 'consume', kind: 'sync', call: 'c.consume(k).allowed', expect: 'allowed' },
  { id: 'slidingLog.allow', contender: 'slidingLog', op: 'allow', kind: 'sync', call: 'c.allow(k)', expect: 'allowed' },
  { id: 'slidingLog.consume', contender: 'slidingLog', op: 'consume', kind: 'sync', call: 'c.consume(k).allowed', expect: 'allowed' },
  { id: 'concurrency.lease', contender: 'concurrency', op: 'allow + release', kind: 'sync', call: 'c.allow(k) && (c.release(k), true)', expect: 'allowed' },
  { id: 'composite.allow', contender: 'composite', op: 'allow', kind: 'sync', call: 'c.allow(k)', expect: 'allowed' },
  { id: 'composite.consume', contender: 'composite', op: 'consume', kind: 'sync', call: 'c.consume(k).allowed', expect: 'allowed' },
  {
    id: 'expressRateLimit.increment',
    contender: 'expressRateLimit',
    op: 'increment',
    kind: 'async',
    call: 'c.increment(k)',
    allowedIf: `v.totalHits <= ${LIMIT}`,
    expect: 'allowed',
  },
  { id: 'fastifyRateLimit.incr', contender: 'fastifyRateLimit', op: 'incr', kind: 'sync', call: 'c.incr(k)', expect: 'allowed' },
  {
    id: 'rateLimiterFlexible.consume',
    contender: 'rateLimiterFlexible',
    op: 'consume',
    kind: 'async',
    call: 'c.consume(k)',
    allowedIf: 'true',
    expect: 'allowed',
  },
  {
    id: 'rateLimiterFlexible.consume-denied',
    contender: 'rateLimiterFlexibleDenying',
    op: 'consume (denied)',
    kind: 'async',
    call: 'c.consume(k)',
    allowedIf: 'true',
    expect: 'denied',
    // Spend each key's one point (and go one over) so that every timed call is a rejection.
    prepare: async (c, keys) => {
      for (const k of keys) for (let i = 0; i < 2; i++) await c.consume(k).catch(() => {});
    },
  },
];

/** operation returns the row with this id, or throws listing the ids. */
export function operation(id) {
  const row = operations.find((o) => o.id === id);
  if (row === undefined) throw new Error(`unknown operation ${id}; known: ${operations.map((o) => o.id).join(', ')}`);
  return row;
}
