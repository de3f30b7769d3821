// What every database's contenders share: the limit, the ratekeeper rows (public API only: a limiter
// on a store, `consume` and `peek`), and the verdict codes of rate-limiter-flexible's promises.
import { FixedWindowLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { ADMITTED, DENIED, FAILED } from './_measure.mjs';

/** A billion per minute for every contender (the token bucket: a billion, refilled at 10⁶/s, its most): decisions are admissions, and every one writes. */
export const LIMIT = 1_000_000_000;
export const WINDOW_MS = 60_000;

/** The pool size of every contender on PostgreSQL and MySQL (pg's and postgres.js's default, and mysql2's). */
export const POOL_SIZE = 10;

/** ratekeeper's algorithms that can be rows, by the id --stores-algorithms takes. */
export const ALGORITHMS = {
  'token-bucket': { short: 'tb', label: 'token bucket', make: (store) => new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1_000_000, store, name: 'bench' }) },
  'sliding-window': { short: 'sw', label: 'sliding window', make: (store) => new SlidingWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, store, name: 'bench' }) },
  'fixed-window': { short: 'fw', label: 'fixed window', make: (store) => new FixedWindowLimiter({ limit: LIMIT, windowMs: WINDOW_MS, store, name: 'bench' }) },
};

const decisionCode = (d) => (d.failure !== undefined ? FAILED : d.allowed ? ADMITTED : DENIED);
/** A store may answer synchronously (SQLite) or with a promise; either way the caller awaits the code. */
const code = (result) => (typeof result.then === 'function' ? result.then(decisionCode) : decisionCode(result));

/**
 * ratekeeperRows builds one contender per algorithm, each on its own store from `storeFor(short)` (so
 * on its own table or file), named `ratekeeper <algorithm> (<client>)`.
 */
export function ratekeeperRows({ algorithms, client, driver, sql, floor, storeFor }) {
  return algorithms.map((id) => {
    const a = ALGORITHMS[id];
    const limiter = a.make(storeFor(a.short));
    return {
      id: `rk-${a.short}-${client}`,
      label: `ratekeeper ${a.label} (${client})`,
      role: 'ratekeeper',
      algorithm: id,
      client,
      driver,
      sql,
      floor,
      consume: (key) => code(limiter.consume(key)),
      peek: (key) => code(limiter.peek(key)),
    };
  });
}

/** rlfConsume: rate-limiter-flexible resolves an admission and rejects a denial with a RateLimiterRes (an Error is an error). */
export const rlfConsume = (limiter) => (key) =>
  limiter.consume(key).then(
    () => ADMITTED,
    (e) => {
      if (e instanceof Error) throw e;
      return DENIED;
    },
  );

/** rlfPeek: `get` answers the key's RateLimiterRes, or null when it holds nothing. */
export const rlfPeek = (limiter) => (key) => limiter.get(key).then(() => ADMITTED);

/** rlfReady wraps a rate-limiter-flexible store constructor's callback (its table is created before it calls back). */
export const rlfReady = (make) => new Promise((resolve, reject) => make((error) => (error ? reject(error) : resolve())));
