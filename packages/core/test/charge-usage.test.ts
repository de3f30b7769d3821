/**
 * charge and usage, rate-limiter-flexible's `penalty` and `get`: tables at fixed instants for each
 * algorithm, then properties over random histories of consumes and charges on the memory store, which
 * runs core's pure steps (Algorithm.charge, Algorithm.usage):
 * - a usage read agrees with what a decision reports (remaining is evaluate's, for a cost never granted);
 * - a charge always adds its units (a sliding log saturates at its limit), limit or not;
 * - a key charged past its limit is denied, and its Retry-After is honest;
 * - usage reads empty once resetAfterMs has passed.
 * Each property has a mutant it must catch (mutants/verb-defects.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Algorithm,
  FixedWindowLimiter,
  ManualClock,
  MemoryStore,
  type Policy,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
  type Usage,
} from '../src/index.js';
import type { MemoryBinding } from '../src/store/index.js';
import { anyCase, clockStep, startInstant } from './support/arbitraries.js';
import type { Case } from './support/subjects.js';
import { fixedWindowCase } from './support/subjects.js';
import { chargeAsConsume, usageAsPeek } from './mutants/verb-defects.js';

const T0 = 1_700_000_040_000; // a multiple of 60 s and of 1 s

describe('charge and usage at fixed instants', () => {
  it('a fixed window counts a charge past its limit, and usage reads the count peek cannot', () => {
    const clock = new ManualClock(T0);
    const l = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, clock });
    expect(l.usage('k')).toEqual({ used: 0, limit: 3, remaining: 3, resetAfterMs: 0, blockedMs: 0, policy: l.policy });
    l.consume('k');
    l.consume('k');
    clock.advance(10_000);
    expect(l.usage('k')).toMatchObject({ used: 2, remaining: 1, resetAfterMs: 50_000 });
    expect(l.peek('k').remaining).toBe(0); // peek decides for one more unit: the off-by-one usage avoids
    // With 1 left, a consume of 2 is denied and records nothing; a charge of 2 always counts.
    expect(l.consume('k', 2).allowed).toBe(false);
    expect(l.usage('k').used).toBe(2);
    expect(l.charge('k', 2)).toMatchObject({ used: 4, remaining: 0, resetAfterMs: 50_000 });
    expect(l.consume('k')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 50_000 });
    clock.advance(50_000);
    expect(l.usage('k')).toMatchObject({ used: 0, remaining: 3, resetAfterMs: 0 });
    expect(l.consume('k').allowed).toBe(true);
  });

  it('a token bucket in debt is denied until refill has paid the debt back', () => {
    const clock = new ManualClock(T0);
    const l = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock });
    expect(l.charge('k', 5)).toMatchObject({ used: 5, remaining: 0, resetAfterMs: 5_000 });
    expect(l.consume('k')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 4_000 });
    clock.advance(3_999);
    expect(l.consume('k').allowed).toBe(false);
    expect(l.usage('k')).toMatchObject({ used: 2, remaining: 0, resetAfterMs: 1_001 });
    clock.advance(1);
    expect(l.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('a sliding-window counter weighs a charge like any count', () => {
    const clock = new ManualClock(T0);
    const l = new SlidingWindowLimiter({ limit: 4, windowMs: 60_000, clock });
    expect(l.charge('k', 6)).toMatchObject({ used: 6, remaining: 0, resetAfterMs: 120_000 });
    clock.advance(60_000 + 30_000); // half into the next window: 6 · 1/2 = 3 held
    expect(l.usage('k')).toMatchObject({ used: 3, remaining: 1 });
    expect(l.consume('k', 1).allowed).toBe(true);
    expect(l.consume('k', 1).allowed).toBe(false);
  });

  it('a sliding log saturates: a charge of its limit or more blocks it for one window', () => {
    const clock = new ManualClock(T0);
    const l = new SlidingLogLimiter({ limit: 3, windowMs: 10_000, clock });
    l.consume('k');
    clock.advance(1_000);
    expect(l.charge('k', 7)).toMatchObject({ used: 3, remaining: 0, resetAfterMs: 10_000 });
    expect(l.consume('k').retryAfterMs).toBe(10_000);
  });

  it('a concurrency limit cannot charge, and says so', async () => {
    const { ConcurrencyLimiter } = await import('../src/index.js');
    const l = new ConcurrencyLimiter({ limit: 2 });
    expect(l.chargeable).toBe(false);
    expect(() => l.charge('k', 1)).toThrow(/ConcurrencyLimiter: its algorithm or store cannot charge/);
    expect(() => l.usage('k')).toThrow(/cannot read usage/);
  });
});

/** A memory binding of `c`'s policy, running `algorithm` (c's own unless a mutant is given). */
function bindingOf(c: Case, algorithm?: Algorithm<Policy>): { b: MemoryBinding; limit: number; log: boolean } {
  const limiter = c.create(new ManualClock());
  const b = (algorithm === undefined ? limiter.binding : new MemoryStore().bind(algorithm, limiter.policy)) as MemoryBinding;
  return { b, limit: c.limit, log: limiter.policy.algorithm === 'sliding-log' };
}

interface VerbMove {
  readonly dt: number;
  readonly verb: 'consume' | 'charge';
  readonly cost: number;
}

function verbHistory(c: Case): fc.Arbitrary<VerbMove[]> {
  const move = fc.record({
    dt: clockStep(c.scaleMs),
    verb: fc.constantFrom<'consume' | 'charge'>('consume', 'consume', 'charge'),
    cost: fc.integer({ min: 1, max: c.limit + 3 }),
  });
  return fc.array(move, { minLength: 1, maxLength: 30 });
}

const withHistory = (cases: fc.Arbitrary<Case>) => cases.chain((c) => fc.record({ c: fc.constant(c), start: startInstant, moves: verbHistory(c) }));

/** play runs `moves` on `b` from `start`, calling `check` after each with the instant it ended at. */
function play(b: MemoryBinding, start: number, moves: readonly VerbMove[], check: (now: number, move: VerbMove, before: Usage) => void): void {
  let now = start;
  for (const move of moves) {
    now += move.dt;
    const before = b.usage('k', now);
    if (move.verb === 'consume') b.consume('k', now, move.cost);
    else b.charge('k', now, move.cost);
    check(now, move, before);
  }
}

const usageAgrees = (make: (c: Case) => ReturnType<typeof bindingOf>) =>
  fc.property(withHistory(anyCase), ({ c, start, moves }) => {
    const { b, limit } = make(c);
    play(b, start, moves, (now) => {
      const usage = b.usage('k', now);
      expect(usage.remaining).toBe(b.peek('k', now, limit + 1).remaining);
      expect(usage.used).toBeGreaterThanOrEqual(0);
      if (usage.used <= limit) expect(usage.used + usage.remaining).toBe(limit);
      if (usage.used >= limit) expect(b.peek('k', now, 1).allowed).toBe(false);
    });
  });

const chargeAdds = (make: (c: Case) => ReturnType<typeof bindingOf>) =>
  fc.property(withHistory(anyCase), ({ c, start, moves }) => {
    const { b, limit, log } = make(c);
    play(b, start, moves, (now, move, before) => {
      if (move.verb !== 'charge') return;
      const after = b.usage('k', now);
      expect(after.used).toBe(log ? Math.min(limit, before.used + move.cost) : before.used + move.cost);
    });
  });

const overLimitHonest = (make: (c: Case) => ReturnType<typeof bindingOf>) =>
  fc.property(withHistory(anyCase), ({ c, start, moves }) => {
    const { b } = make(c);
    play(b, start, moves, (now) => {
      const usage = b.usage('k', now);
      if (usage.remaining > 0) return;
      const denied = b.peek('k', now, 1);
      expect(denied.allowed).toBe(false);
      expect(b.peek('k', now + denied.retryAfterMs, 1).allowed).toBe(true);
      expect(b.usage('k', now + usage.resetAfterMs).used).toBe(0);
    });
  });

describe('charge and usage properties (memory store, every algorithm)', () => {
  it('a usage read agrees with the figures decisions report', () =>
    fc.assert(
      usageAgrees((c) => bindingOf(c)),
      { numRuns: 300 },
    ));
  it('a charge always adds its units, past the limit too (a sliding log saturates at it)', () =>
    fc.assert(
      chargeAdds((c) => bindingOf(c)),
      { numRuns: 300 },
    ));
  it('a key with nothing left is denied with an honest Retry-After, and reads empty after resetAfterMs', () =>
    fc.assert(
      overLimitHonest((c) => bindingOf(c)),
      { numRuns: 300 },
    ));
});

describe('the properties catch the verbs mutants', () => {
  const fixed = fc.record({ limit: fc.integer({ min: 1, max: 6 }), windowMs: fc.integer({ min: 100, max: 5_000 }) }).map(({ limit, windowMs }) => fixedWindowCase(limit, windowMs));
  const mutantProperty = (algorithm: Algorithm<Policy>, property: typeof chargeAdds) =>
    fc.property(withHistory(fixed), (args) => {
      fc.assert(
        property((c) => bindingOf(c, algorithm)),
        { numRuns: 1, examples: [[args]] },
      );
    });
  it('a charge that records only what the limit allows', () => {
    expect(() => fc.assert(mutantProperty(chargeAsConsume as unknown as Algorithm<Policy>, chargeAdds), { numRuns: 200 })).toThrow();
  });
  it('a usage read that answers peek for one more unit', () => {
    expect(() => fc.assert(mutantProperty(usageAsPeek as unknown as Algorithm<Policy>, usageAgrees), { numRuns: 200 })).toThrow();
  });
});
