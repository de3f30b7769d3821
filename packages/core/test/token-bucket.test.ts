/**
 * Token bucket contracts: it starts full; any interval of length T admits at most C + R·T cost per key;
 * idle time never stores more than C; and the seed's own check (10 tokens, 2 per second, an hour idle,
 * a request every millisecond for 3 s inclusive: exactly 16 admitted).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, TokenBucketLimiter } from '../src/index.js';
import { classicTokenBucket } from './mutants/classic-token-bucket.js';
import { caseWithHistory, startInstant, tokenBucketCases } from './support/arbitraries.js';
import { expectFigures } from './support/figures.js';
import { type Case, type Subject, bindAlgorithm, realSubject } from './support/subjects.js';
import { runTable } from './support/table.js';

const T0 = 1_700_000_000_000;

describe('token bucket tables', () => {
  it('spends a burst of 10, then refills one token every 500 ms at 2 per second', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 2, clock });
    runTable(limiter, clock, T0, [
      { at: 0, allowed: true, remaining: 9, resetAfterMs: 500 },
      { at: 0, cost: 8, allowed: true, remaining: 1, resetAfterMs: 4500 },
      { at: 0, cost: 2, allowed: false, remaining: 1, retryAfterMs: 500, resetAfterMs: 4500 },
      { at: 0, allowed: true, remaining: 0, resetAfterMs: 5000 },
      { at: 0, allowed: false, remaining: 0, retryAfterMs: 500, resetAfterMs: 5000 },
      { at: 499, allowed: false, remaining: 0, retryAfterMs: 1 },
      { at: 500, allowed: true, remaining: 0, resetAfterMs: 5000 },
      { at: 1999, op: 'peek', cost: 3, allowed: false, remaining: 2, retryAfterMs: 1 },
      { at: 2000, op: 'peek', cost: 3, allowed: true, remaining: 0 },
      { at: 2000, cost: 11, allowed: false, remaining: 3, retryAfterMs: Infinity },
      { at: 5500, allowed: true, remaining: 9, resetAfterMs: 500 },
    ]);
  });

  it('rounds a fractional refill interval up: 0.3 per second fits again after 3334 ms, not 3333', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 0.3, clock });
    runTable(limiter, clock, T0, [
      { at: 0, allowed: true, remaining: 0, resetAfterMs: 3334 },
      { at: 1, allowed: false, retryAfterMs: 3333 },
      { at: 3333, allowed: false, retryAfterMs: 1 },
      { at: 3334, allowed: true, remaining: 0 },
    ]);
  });

  it('matches Envoy-style exact boundaries at 1 per second and 16 per second', () => {
    const clock = new ManualClock(T0);
    const slow = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, clock });
    runTable(slow, clock, T0, [
      { at: 0, allowed: true, remaining: 9 },
      { at: 0, cost: 9, allowed: true, remaining: 0 },
      { at: 999, allowed: false, retryAfterMs: 1 },
      { at: 1000, allowed: true, remaining: 0 },
      { at: 6999, cost: 6, allowed: false, remaining: 5, retryAfterMs: 1 },
      { at: 7000, cost: 6, allowed: true, remaining: 0 },
    ]);
    const fast = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 16, clock });
    runTable(fast, clock, T0, [
      { at: 0, allowed: true },
      { at: 0, allowed: false, retryAfterMs: 63 },
      { at: 62, allowed: false, retryAfterMs: 1 },
      { at: 63, allowed: true },
    ]);
  });

  it('handles extreme rates: 1e-10 per second, 0.769… per second with a burst of 1, the maximum 1e6 per second', () => {
    const clock = new ManualClock(T0);
    const tiny = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1e-10, clock });
    runTable(tiny, clock, T0, [
      { at: 0, allowed: true },
      { at: 86_400_000, allowed: false, retryAfterMs: 1e13 - 86_400_000 },
    ]);
    const odd = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 0.7692307692307693, clock });
    runTable(odd, clock, T0, [
      { at: 0, allowed: true, remaining: 0 },
      { at: 1299, allowed: false },
      { at: 1300, allowed: true },
    ]);
    const fastest = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1e6, clock });
    runTable(fastest, clock, T0, [
      { at: 0, cost: 5, allowed: true, remaining: 0 },
      { at: 0, allowed: false, remaining: 0, retryAfterMs: 1 },
      { at: 1, cost: 5, allowed: true, remaining: 0 },
    ]);
  });

  it('admits exactly 16 of the requests sent every millisecond from t to t + 3000 inclusive after an hour idle (the seed check)', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 2, clock });
    expect(limiter.consume('k', 10).allowed).toBe(true);
    clock.advance(3_600_000);
    const t = clock.now();
    let admitted = 0;
    for (let at = t; at <= t + 3000; at++) {
      clock.set(at);
      if (limiter.allow('k')) admitted++;
    }
    expect(admitted).toBe(16);
  });
});

/**
 * admitsAtMostBurstPlusRate: for every pair of admitted requests i ≤ j on one key (clock never moving
 * back), the cost admitted from i to j inclusive is at most C + R·(t_j − t_i). Checking every pair of
 * admissions checks every interval, since the tightest interval starts and ends at admissions. The
 * bound is widened by 1e-9 of itself, only for the float error of computing R·T here; admitted costs
 * are whole numbers, so that slack can never hide a token.
 */
function admitsAtMostBurstPlusRate(subjectFor: (c: Case) => Subject) {
  return fc.property(caseWithHistory(tokenBucketCases, { maxLength: 80 }), ({ c, start, moves }) => {
    const subject = subjectFor(c);
    const rate = rateOf(c);
    const admitted: { at: number; cost: number }[] = [];
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const d = subject.consume('k', now, move.cost);
      expectFigures(d, `step ${i}`);
      if (d.allowed) admitted.push({ at: now, cost: move.cost });
    }
    for (let i = 0; i < admitted.length; i++) {
      let sum = 0;
      for (let j = i; j < admitted.length; j++) {
        sum += (admitted[j] as { cost: number }).cost;
        const T = (admitted[j] as { at: number }).at - (admitted[i] as { at: number }).at;
        const bound = c.limit + (rate * T) / 1000;
        if (sum > bound + 1e-9 * bound) throw new Error(`admitted ${sum} in ${T} ms (admissions ${i}..${j}), bound ${bound}`);
      }
    }
  });
}

/** The refill rate of a token-bucket case, read back from its policy. */
function rateOf(c: Case): number {
  const policy = c.create(new ManualClock()).policy;
  return policy.algorithm === 'token-bucket' ? policy.refillPerSecond : Number.NaN;
}

/** Idle time never stores more than C: after any history and any idle stretch, one instant admits ≤ C. */
function idleStoresAtMostCapacity(subjectFor: (c: Case) => Subject) {
  const idle = fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 10_000, max: 400 * 86_400_000 }));
  return fc.property(caseWithHistory(tokenBucketCases, { maxLength: 30 }), idle, ({ c, start, moves }, idleMs) => {
    const subject = subjectFor(c);
    let now = start;
    for (const move of moves) subject.consume('k', (now += move.dt), move.cost);
    now += idleMs;
    let admitted = 0;
    while (admitted <= c.limit && subject.allow('k', now, 1)) admitted++;
    if (admitted > c.limit) throw new Error(`admitted ${admitted} at one instant after ${idleMs} ms idle, capacity ${c.limit}`);
    if (idleMs >= c.scaleMs && admitted !== c.limit) throw new Error(`a full bucket admitted ${admitted}, capacity ${c.limit}`);
  });
}

describe('token bucket properties', () => {
  it('admits at most C + R·T cost in any interval of length T', () => {
    fc.assert(
      admitsAtMostBurstPlusRate((c) => realSubject(c)),
      { numRuns: 300 },
    );
  });

  it('never stores more than C tokens, however long a key idles', () => {
    fc.assert(
      idleStoresAtMostCapacity((c) => realSubject(c)),
      { numRuns: 200 },
    );
  });

  it('starts full: a fresh key admits exactly C unit requests at one instant, or one request of cost C', () => {
    fc.assert(
      fc.property(tokenBucketCases, startInstant, (c, now) => {
        const subject = realSubject(c);
        let admitted = 0;
        while (admitted <= c.limit && subject.allow('units', now, 1)) admitted++;
        expect(admitted).toBe(c.limit);
        expect(subject.consume('whole', now, c.limit)).toMatchObject({ allowed: true, remaining: 0 });
      }),
    );
  });

  it('a correct classic [tokens, last] bucket passes the same checks (the harness tests the contract, not the representation)', () => {
    fc.assert(
      admitsAtMostBurstPlusRate((c) => bindAlgorithm(c, classicTokenBucket() as never)),
      { numRuns: 200 },
    );
    fc.assert(
      idleStoresAtMostCapacity((c) => bindAlgorithm(c, classicTokenBucket() as never)),
      { numRuns: 100 },
    );
  });

  it('catches a bucket whose refill is not capped at capacity (mutant)', () => {
    const uncapped = (c: Case) => bindAlgorithm(c, classicTokenBucket({ uncapped: true }) as never);
    expect(fc.check(admitsAtMostBurstPlusRate(uncapped), { numRuns: 300 }).failed).toBe(true);
    expect(fc.check(idleStoresAtMostCapacity(uncapped), { numRuns: 300 }).failed).toBe(true);
  });
});
