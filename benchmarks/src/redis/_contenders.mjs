// The contenders of the Redis benchmarks, each reached the way its middleware reaches Redis, minus
// HTTP, and each making one decision per call on the shared ioredis connection it is given:
//   - PING: the floor of any round trip on this connection;
//   - naive EVALSHA bucket: the token bucket a competent engineer writes in eight lines of Lua, called
//     with `evalsha` and no timeout, no failure policy, no Decision: the floor of a scripted decision;
//   - ratekeeper: a limiter on RedisStore (server time, unless the row says client time as the naive
//     bucket uses; fallback policy); a decision counts only when Redis made it (no `failure` mark), so
//     a run that fell back to memory fails instead of flattering. The timeout is raised to 1 s: on a
//     shared benchmark machine a queue of 50 calls can exceed the 50 ms default, and a timeout
//     changes nothing in the cost of a call that is answered;
//   - rate-limiter-flexible: RateLimiterRedis `consume(key)` (rejects when limited);
//   - express-rate-limit: rate-limit-redis's store, `init({ windowMs })` then `increment(key)`;
//   - @fastify/rate-limit: its store/RedisStore.js, `incr(key, callback, timeWindow, max)`.
// Limits are a billion per window so that every call takes the admitting (writing) path; each call
// returns whether it was admitted, which the runner checks.
import FastifyRedisStore from '@fastify/rate-limit/store/RedisStore.js';
import { CompositeLimiter, FixedWindowLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';
import RateLimitRedisStore from 'rate-limit-redis';
import { RateLimiterRedis, RateLimiterUnion } from 'rate-limiter-flexible';

const LIMIT = 1_000_000_000;
const fromRedis = (d) => d.allowed && d.failure === undefined;
const storeOn = (client) => new RedisStore({ client, timeoutMs: 1000 });
/** The one-call-per-decision path of earlier versions: no batching (and no deny cache, idle here anyway). */
const unbatched = (client) => new RedisStore({ client, timeoutMs: 1000, batch: false, denyCache: false });
const WINDOW_MS = 60_000;

export const NAIVE_BUCKET = `
local tat = tonumber(redis.call('GET', KEYS[1])) or 0
local now, interval, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if tat < now then tat = now end
local nxt = tat + interval
if nxt - burst > now then return 0 end
redis.call('SET', KEYS[1], nxt, 'PX', math.ceil(nxt - now))
return 1`;

/** single returns the single-limit contenders as [label, async setup(client) -> decide(key)]. */
export function single() {
  return [
    ['PING (round-trip floor)', async (c) => (k) => c.ping().then(() => true)],
    [
      'naive EVALSHA token bucket (floor)',
      async (c) => {
        const sha = await c.script('LOAD', NAIVE_BUCKET);
        return (k) => c.evalsha(sha, 1, `naive:${k}`, Date.now(), 0.001, LIMIT * 0.001).then((r) => r === 1);
      },
    ],
    [
      'ratekeeper token bucket',
      async (c) => {
        const limiter = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1_000_000, store: storeOn(c) });
        return (k) => limiter.consume(k).then(fromRedis);
      },
    ],
    [
      'ratekeeper token bucket, batch: false',
      async (c) => {
        const limiter = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1_000_000, store: unbatched(c) });
        return (k) => limiter.consume(k).then(fromRedis);
      },
    ],
    [
      'ratekeeper token bucket, client time',
      async (c) => {
        const store = new RedisStore({ client: c, timeoutMs: 1000, time: 'client' });
        const limiter = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1_000_000, store });
        return (k) => limiter.consume(k).then(fromRedis);
      },
    ],
    [
      'ratekeeper sliding window',
      async (c) => {
        const limiter = new SlidingWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, store: storeOn(c) });
        return (k) => limiter.consume(k).then(fromRedis);
      },
    ],
    [
      'ratekeeper sliding window, batch: false',
      async (c) => {
        const limiter = new SlidingWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, store: unbatched(c) });
        return (k) => limiter.consume(k).then(fromRedis);
      },
    ],
    [
      'ratekeeper fixed window',
      async (c) => {
        const limiter = new FixedWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, store: storeOn(c) });
        return (k) => limiter.consume(k).then(fromRedis);
      },
    ],
    [
      'rate-limiter-flexible RateLimiterRedis',
      async (c) => {
        const limiter = new RateLimiterRedis({ storeClient: c, points: LIMIT, duration: WINDOW_MS / 1000, keyPrefix: 'rlf' });
        return (k) =>
          limiter.consume(k).then(
            () => true,
            () => false,
          );
      },
    ],
    [
      'express-rate-limit + rate-limit-redis',
      async (c) => {
        const store = new RateLimitRedisStore({ sendCommand: (command, ...args) => c.call(command, ...args), prefix: 'erl:' });
        store.init({ windowMs: WINDOW_MS });
        return (k) => store.increment(k).then((r) => r.totalHits <= LIMIT);
      },
    ],
    [
      '@fastify/rate-limit RedisStore',
      async (c) => {
        const store = new FastifyRedisStore(false, false, c, 'frl:');
        return (k) => new Promise((resolve, reject) => store.incr(k, (error, r) => (error ? reject(error) : resolve(r.current <= LIMIT)), WINDOW_MS, LIMIT));
      },
    ],
  ];
}

/** composite returns the two-limit contenders: ratekeeper's one-script composite and RateLimiterUnion. */
export function composite() {
  return [
    [
      'ratekeeper CompositeLimiter (1 script call)',
      async (c) => {
        const store = storeOn(c);
        const limiter = new CompositeLimiter([
          new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1_000_000, store }),
          new SlidingWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, store }),
        ]);
        return (k) => limiter.consume(k).then(fromRedis);
      },
    ],
    [
      'rate-limiter-flexible RateLimiterUnion (2 calls)',
      async (c) => {
        const union = new RateLimiterUnion(
          new RateLimiterRedis({ storeClient: c, points: LIMIT, duration: 1, keyPrefix: 'u1' }),
          new RateLimiterRedis({ storeClient: c, points: LIMIT, duration: WINDOW_MS / 1000, keyPrefix: 'u2' }),
        );
        return (k) =>
          union.consume(k).then(
            () => true,
            () => false,
          );
      },
    ],
  ];
}
