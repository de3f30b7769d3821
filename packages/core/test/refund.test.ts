/**
 * refund(key, cost) gives back what a key spent: exactly, while the key still holds it; never beyond
 * its empty (full) state. Tables per algorithm at fixed instants, then properties over random
 * histories at random instants: (1) with no time passing, honest refunds are exact: remaining is
 * limit − (admitted − refunded); (2) whatever is refunded, a key never holds more than its limit, so
 * no burst larger than the limit is ever admitted. An uncapped refund (mutant) fails (2). Composites
 * give every member its part back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompositeLimiter, FixedWindowLimiter, ManualClock, MemoryStore, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '../src/index.js';
import { fixedWindow, slidingWindow, tokenBucket, slidingLog } from '../src/store/index.js';
import type { Algorithm, Policy, StoreBinding } from '../src/index.js';
import { overfillingRefund } from './mutants/overfilling-refund.js';

const T0 = 1_700_000_000_000;
const LIMIT = 5;
const SUBJECTS: readonly [string, Algorithm<never>, Policy][] = [
  ['token bucket', tokenBucket as Algorithm<never>, new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1 }).policy],
  ['sliding window', slidingWindow as Algorithm<never>, new SlidingWindowLimiter({ limit: LIMIT, windowMs: 10_000 }).policy],
  ['fixed window', fixedWindow as Algorithm<never>, new FixedWindowLimiter({ limit: LIMIT, windowMs: 10_000 }).policy],
  ['sliding log', slidingLog(LIMIT) as Algorithm<never>, new SlidingLogLimiter({ limit: LIMIT, windowMs: 10_000 }).policy],
];

const bind = (algorithm: Algorithm<never>, policy: Policy) => new MemoryStore().bind(algorithm, policy as never) as StoreBinding<'sync'>;

describe.each(SUBJECTS)('%s refund', (_name, algorithm, policy) => {
  it('gives back exactly what was spent, and nothing beyond full', () => {
    const b = bind(algorithm, policy);
    b.refund!('k', T0, 3);
    expect(b.peek('k', T0, 1).remaining).toBe(LIMIT - 1);
    for (let i = 0; i < LIMIT; i++) expect(b.consume('k', T0, 1).allowed).toBe(true);
    expect(b.consume('k', T0, 1).allowed).toBe(false);
    b.refund!('k', T0, 2);
    expect([b.consume('k', T0, 2).allowed, b.consume('k', T0, 1).allowed]).toEqual([true, false]);
    b.refund!('k', T0, 1_000);
    expect([b.consume('k', T0, LIMIT).allowed, b.consume('k', T0, 1).allowed]).toEqual([true, false]);
  });
});

/** One history step: consume or refund `cost`, after `wait` ms. */
const history = fc.array(fc.record({ refund: fc.boolean(), cost: fc.integer({ min: 1, max: 7 }), wait: fc.constantFrom(0, 0, 0, 1, 250, 999, 4_000, 10_000) }), { maxLength: 40 });

/** neverAboveFull replays a history, then checks that no burst above the limit fits at any later instant. */
function neverAboveFull(make: () => StoreBinding<'sync'>, steps: fc.Arbitrary<{ refund: boolean; cost: number; wait: number }[]>) {
  fc.assert(
    fc.property(steps, fc.constantFrom(0, 1, 500, 20_000), (ops, after) => {
      const b = make();
      let now = T0;
      for (const op of ops) {
        now += op.wait;
        if (op.refund) b.refund!('k', now, op.cost);
        else b.consume('k', now, op.cost);
      }
      b.refund!('k', now, 1_000);
      now += after;
      let admitted = 0;
      while (admitted <= LIMIT && b.consume('k', now, 1).allowed) admitted++;
      expect(admitted).toBeLessThanOrEqual(LIMIT);
    }),
    { numRuns: 300 },
  );
}

describe.each(SUBJECTS)('%s refund properties', (_name, algorithm, policy) => {
  it('is exact with no time passing: remaining is limit − (admitted − refunded)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ cost: fc.integer({ min: 1, max: 3 }), back: fc.integer({ min: 0, max: 3 }) }), { maxLength: 30 }), (ops) => {
        const b = bind(algorithm, policy);
        let net = 0;
        for (const op of ops) {
          if (!b.consume('k', T0, op.cost).allowed) continue;
          const back = Math.min(op.back, op.cost);
          if (back > 0) b.refund!('k', T0, back);
          net += op.cost - back;
        }
        expect(b.peek('k', T0, 1).remaining).toBe(Math.max(0, LIMIT - net - (net < LIMIT ? 1 : 0)));
      }),
      { numRuns: 300 },
    );
  });

  it('never leaves a key holding more than its limit, whatever is refunded and whenever', () => {
    neverAboveFull(() => bind(algorithm, policy), history);
  });
});

describe('an uncapped refund (mutant)', () => {
  it('is caught by the never-above-full property', () => {
    expect(() => neverAboveFull(() => bind(overfillingRefund as Algorithm<never>, SUBJECTS[2]![2]), history)).toThrow();
  });
});

describe('limiters', () => {
  it('refund on every limiter, validated like consume; a composite gives each member its part back', () => {
    const clock = new ManualClock(T0);
    const perSecond = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock });
    const perMinute = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, clock });
    const sliding = new SlidingWindowLimiter({ limit: 3, windowMs: 60_000, clock });
    const both = new CompositeLimiter([perSecond, perMinute, sliding]);
    expect(both.consume('k', 2).allowed).toBe(true);
    both.refund('k', 2);
    expect(both.peek('k').parts?.map((p) => p.remaining)).toEqual([1, 2, 2]);
    expect(() => perSecond.refund('k', 0)).toThrow(/cost/);
    expect(() => both.refund(1 as never)).toThrowError(TypeError);
  });
});

describe('a custom algorithm without a refund step', () => {
  it('refuses refund loudly rather than doing nothing, and so do countOutcome and settle at creation', async () => {
    const { Limiter } = await import('../src/index.js');
    const { prepareRateLimit } = await import('../src/adapter.js');
    const policy = new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1 }).policy;
    class NoRefund extends Limiter<typeof policy, 'sync'> {
      constructor() {
        super('NoRefund', { ...tokenBucket, refund: undefined } as never, policy, {});
      }
    }
    const limiter = new NoRefund();
    expect(limiter.refundable).toBe(false);
    expect(() => limiter.refund('k')).toThrowError(new TypeError('NoRefund: its algorithm or store cannot refund'));
    expect(() => prepareRateLimit('rateLimit', { limiter, countOutcome: () => true })).toThrowError(
      new TypeError('rateLimit: countOutcome and settle need limiters with refund(); limiter has none'),
    );
  });
});
