/**
 * reserve books on what a limiter declares (`RateLimiter.bookable`: its store, bindings and clock), never
 * on which class it is: a wrapper that forwards a core limiter's `bookable` is booked exactly as the
 * limiter itself (one queue), a limiter without it is refused, naming what it must be, and so is a
 * wrapper forwarding a ConcurrencyLimiter's (the refusal reads the bindings' policies, not the wrapper's).
 */
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter, ManualClock, type RateLimiter, TokenBucketLimiter, reserve } from '../src/index.js';

/** wrapped forwards every member of `inner`, `bookable` included, through a plain object (no class of core's). */
function wrapped(inner: TokenBucketLimiter, withBookable: boolean): RateLimiter<'sync'> {
  return {
    mode: 'sync',
    policies: inner.policies,
    consume: (key, cost) => inner.consume(key, cost),
    peek: (key, cost) => inner.peek(key, cost),
    allow: (key, cost) => inner.allow(key, cost),
    reset: (key) => inner.reset(key),
    ...(withBookable ? { bookable: inner.bookable } : {}),
  };
}

describe('reserve on what a limiter declares', () => {
  it('books through a wrapper that forwards bookable, in the one queue of the limiter it wraps', () => {
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) });
    const first = reserve(wrapped(limiter, true), 'k');
    const second = reserve(limiter, 'k');
    const third = reserve(wrapped(limiter, true), 'k');
    expect([first, second, third].map((r) => [r.ok, r.delayMs])).toEqual([
      [true, 0],
      [true, 1000],
      [true, 2000],
    ]);
  });

  it('refuses a limiter that declares nothing to book on', () => {
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) });
    expect(() => reserve(wrapped(limiter, false), 'k')).toThrow(/reserve: limiter must be a single-policy core limiter or a CompositeLimiter/);
  });

  it("refuses a wrapper forwarding a ConcurrencyLimiter's bookable, whatever policies the wrapper shows", () => {
    const leases = new ConcurrencyLimiter({ limit: 2, clock: new ManualClock(0) });
    const disguised: RateLimiter<'sync'> = { ...wrapped(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 }), false), bookable: leases.bookable };
    expect(() => reserve(disguised, 'k')).toThrow(/a ConcurrencyLimiter cannot book a future instant/);
  });
});
