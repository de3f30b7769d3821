/**
 * GcraLimiter is an honest alias of the token bucket: GCRA(T, burst) keeps T exactly as the policy's
 * intervalMs and `burst` as its capacity, and decides identically to TokenBucketLimiter({ capacity:
 * burst, refillPerSecond: 1000 / T }) for every T whose rate round-trips (1000 / (1000 / T) === T), on
 * any history. Two mapping slips (test/mutants/gcra-aliases.ts) fail the same property.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Clock, type Decision, GcraLimiter, ManualClock, type RateLimiter, TokenBucketLimiter } from '../src/index.js';
import { nameNumber } from '../src/policy.js';
import { burstBeyondFirst, intervalAsRate } from './mutants/gcra-aliases.js';
import { clockStep, costFor, startInstant } from './support/arbitraries.js';
import { runTable } from './support/table.js';

const T0 = 1_700_000_000_000;
const figures = (d: Decision) => `${d.allowed}/${d.remaining}/${d.retryAfterMs}/${d.resetAfterMs}`;

/** Emission intervals: whole and fractional milliseconds, from the fastest allowed (0.001) to minutes. */
const interval = fc.oneof(
  fc.constantFrom(1, 2, 7, 100, 500, 1000, 0.001, 0.5, 2.5, 1000 / 3, 60_000),
  fc.integer({ min: 1, max: 100_000 }),
  fc.double({ min: 0.001, max: 100_000, noNaN: true }),
);
const roundTrips = (T: number) => 1000 / (1000 / T) === T;

type Make = (T: number, burst: number, clock: Clock) => RateLimiter<'sync'>;
const bucket: Make = (T, burst, clock) => new TokenBucketLimiter({ capacity: burst, refillPerSecond: 1000 / T, clock });

/** decidesLike: on the same history, GcraLimiter and `other` give the same figures, step by step. */
function decidesLike(other: Make) {
  const arb = fc.record({ T: interval.filter(roundTrips), burst: fc.integer({ min: 1, max: 12 }) }).chain(({ T, burst }) =>
    fc.record({
      T: fc.constant(T),
      burst: fc.constant(burst),
      start: startInstant,
      moves: fc.array(fc.record({ dt: clockStep(Math.ceil(T * burst)), cost: costFor(burst, true) }), { minLength: 1, maxLength: 60 }),
    }),
  );
  return fc.property(arb, ({ T, burst, start, moves }) => {
    const clock = new ManualClock(start);
    const gcra = new GcraLimiter({ emissionIntervalMs: T, burst, clock });
    const twin = other(T, burst, clock);
    for (const [i, move] of moves.entries()) {
      clock.advance(move.dt);
      const [a, b] = [gcra.consume('k', move.cost), twin.consume('k', move.cost)];
      if (figures(a) !== figures(b)) throw new Error(`step ${i} (T ${T}, burst ${burst}, cost ${move.cost}): gcra ${figures(a)}, bucket ${figures(b)}`);
    }
  });
}

describe('GcraLimiter', () => {
  it('spends a burst of 10, then admits one request every emission interval of 500 ms', () => {
    const clock = new ManualClock(T0);
    const limiter = new GcraLimiter({ emissionIntervalMs: 500, burst: 10, clock });
    runTable(limiter, clock, T0, [
      { at: 0, cost: 10, allowed: true, remaining: 0, resetAfterMs: 5000 },
      { at: 0, allowed: false, retryAfterMs: 500 },
      { at: 499, allowed: false, retryAfterMs: 1 },
      { at: 500, allowed: true, remaining: 0 },
      { at: 5500, op: 'peek', cost: 10, allowed: true, remaining: 0 },
    ]);
  });

  it('is a token bucket: its policy is the bucket of capacity burst with intervalMs exactly T', () => {
    fc.assert(
      fc.property(interval, fc.integer({ min: 1, max: 1000 }), (T, burst) => {
        const { policy } = new GcraLimiter({ emissionIntervalMs: T, burst });
        expect(policy).toMatchObject({ algorithm: 'token-bucket', capacity: burst, limit: burst, intervalMs: T, refillPerSecond: 1000 / T, burstMs: burst * T });
        expect(policy.name).toBe(`gcra-${nameNumber(T)}-${nameNumber(burst)}`);
      }),
    );
  });

  it('decides identically to TokenBucketLimiter({ capacity: burst, refillPerSecond: 1000 / T }) on any history', () => {
    fc.assert(decidesLike(bucket), { numRuns: 300 });
  });

  it('keeps T exact where 1000 / (1000 / T) does not: at 60 ms, intervalMs is 60, not 60.00000000000001', () => {
    expect(roundTrips(60)).toBe(false);
    expect(new GcraLimiter({ emissionIntervalMs: 60, burst: 1 }).policy.intervalMs).toBe(60);
    expect(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1000 / 60 }).policy.intervalMs).not.toBe(60);
  });

  it('catches an alias that reads burst as requests beyond the first (mutant)', () => {
    expect(fc.check(decidesLike(burstBeyondFirst), { numRuns: 300 }).failed).toBe(true);
  });

  it('catches an alias that passes the interval as the rate (mutant)', () => {
    expect(fc.check(decidesLike(intervalAsRate), { numRuns: 300 }).failed).toBe(true);
  });
});
