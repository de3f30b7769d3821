/**
 * Every rate algorithm core has, each as a limiter factory with long periods (a day's window, a bucket
 * refilling one unit per hour), so that no check depends on the exact instant a store decides at: a
 * store on its server's clock passes as surely as one on the limiter's.
 */
import {
  type Clock,
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  GcraLimiter,
  type Mode,
  type RateLimiter,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  type Store,
  TokenBucketLimiter,
} from '@ratekeeper/core';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export interface Made {
  readonly store: Store;
  readonly clock: Clock;
  readonly name: string;
}

export interface AlgorithmCase {
  readonly algorithm: string;
  /** make builds a limiter admitting `limit` at once, then about nothing for an hour or more. */
  make(on: Made, limit: number): RateLimiter<Mode>;
}

const opts = (on: Made) => ({ store: on.store as Store<Mode>, clock: on.clock, name: on.name });

export const ALGORITHMS: readonly AlgorithmCase[] = [
  { algorithm: 'token-bucket', make: (on, limit) => new TokenBucketLimiter<Mode>({ capacity: limit, refillPerSecond: 1 / 3600, ...opts(on) }) },
  { algorithm: 'gcra', make: (on, limit) => new GcraLimiter<Mode>({ emissionIntervalMs: HOUR, burst: limit, ...opts(on) }) },
  { algorithm: 'sliding-window', make: (on, limit) => new SlidingWindowLimiter<Mode>({ limit, windowMs: DAY, ...opts(on) }) },
  { algorithm: 'fixed-window', make: (on, limit) => new FixedWindowLimiter<Mode>({ limit, windowMs: DAY, ...opts(on) }) },
  { algorithm: 'sliding-log', make: (on, limit) => new SlidingLogLimiter<Mode>({ limit, windowMs: DAY, ...opts(on) }) },
  // Last, so that the checks that pick a member by index (ALGORITHMS[3], the fixed window) keep theirs.
  { algorithm: 'first-request-window', make: (on, limit) => new FirstRequestWindowLimiter<Mode>({ limit, windowMs: DAY, ...opts(on) }) },
];

/** limiterOf builds `algorithm`'s limiter on the context's store under a fresh name. */
export function limiterOf(a: AlgorithmCase, c: { store: Store; clock: Clock; fresh(): string }, limit: number): RateLimiter<Mode> {
  return a.make({ store: c.store, clock: c.clock, name: c.fresh() }, limit);
}
