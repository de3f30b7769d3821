/**
 * The single-policy limiters. Each validates its options once, at construction (a RangeError or
 * TypeError naming the class, the option and the value; a TypeError naming an option it does not
 * take), derives an immutable policy and binds it to
 * its store. The caller's options object is never mutated.
 */
import { firstRequestWindow } from '../algorithms/first-request-window.js';
import { fixedWindow } from '../algorithms/fixed-window.js';
import { MAX_LOG, slidingLog } from '../algorithms/sliding-log.js';
import { slidingWindow } from '../algorithms/sliding-window.js';
import { tokenBucket } from '../algorithms/token-bucket.js';
import { Limiter, type LimiterOptions } from './limiter.js';
import {
  type FirstRequestWindowPolicy,
  type FixedWindowPolicy,
  type SlidingLogPolicy,
  type SlidingWindowPolicy,
  type TokenBucketPolicy,
  type WindowAlgorithm,
  tokenBucketPolicy,
  windowPolicy,
} from '../policy.js';
import type { Mode } from '../store/contract.js';
import { fail, optionsObject, policyName, positiveInteger, positiveNumber, quota, refuseUnknown } from '../validate.js';

export interface TokenBucketOptions<M extends Mode = 'sync'> extends LimiterOptions<M> {
  /** Bucket size: the largest burst (a positive integer). */
  readonly capacity: number;
  /** Tokens added per second (> 0, fractions allowed, at most 1e6; a full refill within 2^52 ms). */
  readonly refillPerSecond: number;
}

/**
 * The option names each limiter takes; any other name is refused at construction. The adapters'
 * algorithm shorthand (http/options/shorthand.ts) passes exactly these through (test/validation.test.ts).
 */
const COMMON = ['clock', 'store', 'name'] as const;
export const TOKEN_BUCKET_OPTIONS: ReadonlySet<string> = new Set(['capacity', 'refillPerSecond', ...COMMON]);
export const WINDOW_OPTIONS: ReadonlySet<string> = new Set(['limit', 'windowMs', ...COMMON]);

/**
 * Rate bounds that keep the bucket's arithmetic exact (see algorithms/token-bucket.ts): above 1e6 per
 * second the token clock of an epoch instant nears 2^52 and whole tokens start to round away; a full
 * refill longer than 2^52 ms (142,000 years) would put instants beyond exact doubles.
 */
const MAX_REFILL_PER_SECOND = 1e6;
const MAX_BURST_MS = 2 ** 52;

/**
 * TokenBucketLimiter is a token bucket of `capacity` tokens per key, initially full and refilled at
 * `refillPerSecond`: bursts up to capacity, then a steady rate. One number of state per key.
 */
export class TokenBucketLimiter<M extends Mode = 'sync'> extends Limiter<TokenBucketPolicy, M> {
  constructor(options: TokenBucketOptions<M>) {
    const owner = 'TokenBucketLimiter';
    const o = optionsObject(owner, options) as Partial<TokenBucketOptions<M>>;
    refuseUnknown(owner, o, TOKEN_BUCKET_OPTIONS);
    const capacity = quota(owner, 'capacity', o.capacity);
    const refill = positiveNumber(owner, 'refillPerSecond', o.refillPerSecond, MAX_REFILL_PER_SECOND);
    if ((capacity * 1000) / refill > MAX_BURST_MS) {
      fail(owner, 'refillPerSecond', `at least ${(capacity * 1000) / MAX_BURST_MS} (a full refill within 2^52 ms)`, refill, 'number');
    }
    const name = o.name === undefined ? undefined : policyName(owner, o.name);
    super(owner, tokenBucket, tokenBucketPolicy(capacity, refill, name), o);
  }
}

export interface WindowOptions<M extends Mode = 'sync'> extends LimiterOptions<M> {
  /** Most cost admitted per window (a positive integer). */
  readonly limit: number;
  /** Window length in milliseconds (a positive integer). */
  readonly windowMs: number;
}

/**
 * SlidingWindowLimiter admits at most `limit` per `windowMs` by the weighted sliding-window counter:
 * smooth across window boundaries, three numbers of state per key.
 */
export class SlidingWindowLimiter<M extends Mode = 'sync'> extends Limiter<SlidingWindowPolicy, M> {
  constructor(options: WindowOptions<M>) {
    const [policy, o] = windowOptions('SlidingWindowLimiter', 'sliding-window', options);
    super('SlidingWindowLimiter', slidingWindow, policy, o);
  }
}

/**
 * FixedWindowLimiter admits at most `limit` per epoch-aligned window of `windowMs`: every key resets at
 * the same instant (a multiple of `windowMs` since the epoch); up to twice the limit can pass across a
 * window boundary. For a window that starts at each key's first request, as the peers count
 * (express-rate-limit, @fastify/rate-limit, rate-limiter-flexible), use FirstRequestWindowLimiter.
 */
export class FixedWindowLimiter<M extends Mode = 'sync'> extends Limiter<FixedWindowPolicy, M> {
  constructor(options: WindowOptions<M>) {
    const [policy, o] = windowOptions('FixedWindowLimiter', 'fixed-window', options);
    super('FixedWindowLimiter', fixedWindow, policy, o);
  }
}

/**
 * FirstRequestWindowLimiter admits at most `limit` per window of `windowMs` that starts at the key's
 * first request (the first one that finds no live window) and ends `windowMs` later: the window
 * express-rate-limit, rate-limit-redis, @fastify/rate-limit and rate-limiter-flexible count, and what
 * the adapters' `{ windowMs, limit }` shorthand builds. Each key resets on its own schedule; up to
 * twice the limit can pass around the end of a key's window. Two numbers of state per key.
 */
export class FirstRequestWindowLimiter<M extends Mode = 'sync'> extends Limiter<FirstRequestWindowPolicy, M> {
  constructor(options: WindowOptions<M>) {
    const [policy, o] = windowOptions('FirstRequestWindowLimiter', 'first-request-window', options);
    super('FirstRequestWindowLimiter', firstRequestWindow, policy, o);
  }
}

/**
 * SlidingLogLimiter admits at most `limit` in any interval of `windowMs`, exactly, by keeping the
 * instant of each of the last `limit` admitted units: limit + 1 numbers of state per key (8 bytes each),
 * so limit is at most 10,000. Use it where an exact rolling window matters more than memory.
 */
export class SlidingLogLimiter<M extends Mode = 'sync'> extends Limiter<SlidingLogPolicy, M> {
  constructor(options: WindowOptions<M>) {
    const [policy, o] = windowOptions('SlidingLogLimiter', 'sliding-log', options);
    super('SlidingLogLimiter', slidingLog(policy.limit), policy, o);
  }
}

function windowOptions<A extends WindowAlgorithm, M extends Mode>(owner: string, algorithm: A, options: WindowOptions<M>) {
  const o = optionsObject(owner, options) as Partial<WindowOptions<M>>;
  refuseUnknown(owner, o, WINDOW_OPTIONS);
  const limit = quota(owner, 'limit', o.limit);
  if (algorithm === 'sliding-log' && limit > MAX_LOG) {
    fail(owner, 'limit', `a positive integer of at most ${MAX_LOG} (the log keeps one instant per unit)`, limit, 'number');
  }
  const windowMs = positiveInteger(owner, 'windowMs', o.windowMs);
  // The sliding window compares previous·(W − e) + current·W with limit·W in exact integers.
  if (algorithm === 'sliding-window' && limit * windowMs > Number.MAX_SAFE_INTEGER) {
    fail(owner, 'windowMs', `at most ${Math.floor(Number.MAX_SAFE_INTEGER / limit)} for limit ${limit}`, windowMs, 'number');
  }
  const name = o.name === undefined ? undefined : policyName(owner, o.name);
  return [windowPolicy(algorithm, limit, windowMs, name), o] as const;
}
