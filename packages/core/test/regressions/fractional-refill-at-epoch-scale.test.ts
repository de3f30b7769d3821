/**
 * Regression: at epoch-scale instants (~1.6e12 ms, where a double resolves 2^-12 ms) a fractional
 * refill interval made the token bucket's `(base + n·interval) − burst ≤ t` test miss by one rounding:
 * a fresh bucket of 2 at 0.2752856756768791 tokens/s admitted one request, reported remaining 0, and
 * denied the second with retryAfterMs 1. Found by the "starts full" property.
 */
import { describe, it } from 'vitest';
import { ManualClock, TokenBucketLimiter } from '../../src/index.js';
import { runTable } from '../support/table.js';

describe('fractional refill at epoch-scale instants', () => {
  it('a fresh bucket of 2 at 0.2752856756768791 per second admits 2 at once', () => {
    const t0 = 1_577_836_800_000;
    const clock = new ManualClock(t0);
    const limiter = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 0.2752856756768791, clock });
    runTable(limiter, clock, t0, [
      { at: 0, allowed: true, remaining: 1 },
      { at: 0, allowed: true, remaining: 0 },
      { at: 0, allowed: false, remaining: 0, retryAfterMs: 3633 },
    ]);
  });

  it('a fresh bucket of 4 at 7 per second reports 3 remaining after one request', () => {
    const t0 = 1_577_836_800_000;
    const clock = new ManualClock(t0);
    const limiter = new TokenBucketLimiter({ capacity: 4, refillPerSecond: 7, clock });
    runTable(limiter, clock, t0, [
      { at: 0, allowed: true, remaining: 3 },
      { at: 10_000, cost: 4, allowed: true, remaining: 0 },
    ]);
  });
});
