/**
 * Regression (issue 32): a token bucket of a billion per hour derived the name
 * `tb-1000000000-277777.77777777775`, which every response's RateLimit headers then carried. Derived
 * names write a whole number with six or more trailing zeros as a power of ten and a fraction that is
 * whole per minute, hour or day as that; whole numbers below that, and short fractions, are as they
 * were. Never lossy: two rates that differ derive two names (a name keys the state on a shared store).
 */
import { describe, expect, it } from 'vitest';
import { GcraLimiter, TokenBucketLimiter } from '../../src/index.js';
import { nameNumber } from '../../src/policy.js';

describe('derived policy names', () => {
  it.each([
    [60, '60'],
    [1, '1'],
    [0.5, '0.5'],
    [10_000, '10000'],
    [3_600_000, '3600000'],
    [1_000_000, '1e6'],
    [1_000_000_000, '1e9'],
    [1_000_000_000 / 3600, '1e9_h'],
    [1 / 60, '1_min'],
    [5 / 86_400, '5_d'],
    [Math.PI, String(Math.PI)],
  ])('writes %d as %s', (n, want) => {
    expect(nameNumber(n)).toBe(want);
  });

  it('are short for a billion per hour', () => {
    expect(new TokenBucketLimiter({ capacity: 1_000_000_000, refillPerSecond: 1_000_000_000 / 3600 }).policies[0]?.name).toBe('tb-1e9-1e9_h');
    expect(new TokenBucketLimiter({ capacity: 60, refillPerSecond: 1 }).policies[0]?.name).toBe('tb-60-1');
    expect(new GcraLimiter({ emissionIntervalMs: 1000 / 3, burst: 5 }).policies[0]?.name).toBe('gcra-20000_min-5');
  });

  it('never gives two rates one name', () => {
    const names = [1, 1 + 1e-9, 1 - 1e-9, 1000 / 3, 1000 / 3 + 1e-9].map((r) => new TokenBucketLimiter({ capacity: 10, refillPerSecond: r }).policies[0]?.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_.:-]{1,64}$/); // what a header may carry
  });
});
