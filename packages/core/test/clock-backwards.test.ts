/**
 * A clock that goes backwards (ManualClock.set to an earlier instant, by a little or by a lot) mints
 * nothing and never yields a negative or NaN figure. What "mints nothing" means, exactly:
 * - token bucket: for admitted requests i ≤ j on one key, the cost admitted from i to j is at most
 *   C + R·(m_j − t_i), where t_i is the clock at i and m_j the latest instant seen up to j (the
 *   monotonic elapsed time). On its own table the bucket even keeps C + R·(t_j − t_i), raw clock;
 * - windows: that cost is at most L·(windows from t_i's window to m_j's window), so no window of
 *   monotonic time ever holds more than L;
 * - first-request windows: their starts are W apart at least and none starts after m_j, so at most
 *   ⌊D/W⌋ + 2 windows (⌊D/W⌋ + 1 when W divides D) meet [t_i, m_j], D = m_j − t_i: that many L at most.
 * Filler keys on a store of 2 keys make the store sweep between steps, so the bounds are also checked
 * while empty state is being dropped (up to the first eviction of live state, which is a documented
 * reset and tested on its own in memory-store.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, TokenBucketLimiter } from '../src/index.js';
import { classicTokenBucket } from './mutants/classic-token-bucket.js';
import { clockTrustingFixedWindow } from './mutants/window-defects.js';
import { anyCase, costFor, fixedWindowCases, startInstant, tokenBucketCases } from './support/arbitraries.js';
import { expectFigures } from './support/figures.js';
import { type Case, type Subject, bindAlgorithm, compositeSubject, realSubject } from './support/subjects.js';

interface Jump {
  /** Forward step (≥ 0) or backward jump (< 0), in milliseconds. */
  readonly dt: number;
  readonly cost: number;
  /** Also touch a filler key first (forces sweeps on a tiny store). */
  readonly filler: number | undefined;
}

function jumps(c: Case): fc.Arbitrary<Jump[]> {
  const s = c.scaleMs;
  const dt = fc.oneof(
    { arbitrary: fc.constant(0), weight: 2 },
    { arbitrary: fc.integer({ min: 1, max: Math.max(1, 2 * s) }), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: Math.max(1, Math.ceil(s / 4)) }).map((d) => -d), weight: 2 }, // small step back
    { arbitrary: fc.integer({ min: s, max: 100 * s + 3_600_000 }).map((d) => -d), weight: 1 }, // large step back
  );
  const filler = fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined });
  return fc.array(fc.record({ dt, cost: costFor(c.limit, true), filler }), { minLength: 1, maxLength: 60 });
}

function rateOf(c: Case): number {
  const p = c.create(new ManualClock()).policy;
  return p.algorithm === 'token-bucket' ? p.refillPerSecond : Number.NaN;
}

/** mintsNothing checks the bound above for every pair of admissions (`raw` also checks the raw-clock form). */
function mintsNothing(cases: fc.Arbitrary<Case>, subjectFor: (c: Case) => Subject, raw = false) {
  const arb = cases.chain((c) => fc.record({ c: fc.constant(c), start: startInstant, moves: jumps(c) }));
  return fc.property(arb, ({ c, start, moves }) => {
    const subject = subjectFor(c);
    const admitted: { at: number; latest: number; cost: number }[] = [];
    let now = start;
    let latest = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      latest = Math.max(latest, now);
      if (move.filler !== undefined) expectFigures(subject.consume(`filler${move.filler}`, now, 1), `step ${i} filler`);
      if ((subject.evictions ?? 0) > 0) break; // evicting live state is a documented reset; see memory-store.test.ts
      const d = subject.consume('k', now, move.cost);
      expectFigures(d, `step ${i} at ${now}`);
      expectFigures(subject.peek('k', now, 1), `step ${i} peek`);
      if (d.allowed) admitted.push({ at: now, latest, cost: move.cost });
    }
    const algorithm = c.create(new ManualClock()).policy.algorithm;
    const bucket = algorithm === 'token-bucket';
    const own = (d: number) => Math.floor(d / c.scaleMs) + (d % c.scaleMs === 0 ? 1 : 2);
    for (let i = 0; i < admitted.length; i++) {
      let sum = 0;
      for (let j = i; j < admitted.length; j++) {
        const a = admitted[i] as (typeof admitted)[number];
        const b = admitted[j] as (typeof admitted)[number];
        sum += b.cost;
        const bounds = bucket
          ? [c.limit + (rateOf(c) * (b.latest - a.at)) / 1000, raw ? c.limit + (rateOf(c) * (b.at - a.at)) / 1000 : Infinity]
          : algorithm === 'first-request-window'
            ? [c.limit * own(b.latest - a.at)]
            : [c.limit * (Math.floor(b.latest / c.scaleMs) - Math.floor(a.at / c.scaleMs) + 1)];
        const bound = Math.min(...bounds);
        if (sum > bound + 1e-6) throw new Error(`admissions ${i}..${j} (clock ${a.at} → ${b.at}, latest ${b.latest}) took ${sum} > ${bound}`);
      }
    }
  });
}

describe('a clock going backwards', () => {
  it('mints nothing for any algorithm, and the bucket keeps even the raw-clock bound', () => {
    fc.assert(
      mintsNothing(anyCase, (c) => realSubject(c), true),
      { numRuns: 400 },
    );
  });

  it('mints nothing while a store of 2 keys keeps dropping state', () => {
    fc.assert(
      mintsNothing(anyCase, (c) => realSubject(c, 2)),
      { numRuns: 400 },
    );
  });

  it('leaves every figure of a composite whole and non-negative', () => {
    const arb = fc.array(anyCase, { minLength: 2, maxLength: 3 }).chain((cases) => {
      const widest = cases.reduce((a, b) => (a.scaleMs >= b.scaleMs ? a : b));
      return fc.record({ cases: fc.constant(cases), start: startInstant, moves: jumps(widest) });
    });
    fc.assert(
      fc.property(arb, ({ cases, start, moves }) => {
        const subject = compositeSubject(cases);
        let now = start;
        for (const [i, move] of moves.entries()) {
          now += move.dt;
          expectFigures(subject.consume('k', now, move.cost), `step ${i} at ${now}`);
          expectFigures(subject.peek('k', now, 1), `step ${i} peek`);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('holds a key at an empty bucket after a long step back, and charges a short one', () => {
    const t0 = 1_700_000_000_000;
    const clock = new ManualClock(t0);
    const limiter = new TokenBucketLimiter({ capacity: 4, refillPerSecond: 1, clock });
    expect(limiter.consume('k', 4).allowed).toBe(true);
    clock.set(t0 - 3_600_000);
    expect(limiter.consume('k')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 3_601_000, resetAfterMs: 3_604_000 });
    clock.set(t0 + 4000);
    expect(limiter.consume('k', 2)).toMatchObject({ allowed: true, remaining: 2 });
    clock.set(t0 + 3000); // one second back: the bucket reads one token less, never more
    expect(limiter.peek('k')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('catches a bucket whose last-refill instant follows the clock back (mutant)', () => {
    const mutant = (c: Case) => bindAlgorithm(c, classicTokenBucket({ trustsBackwardClock: true }) as never);
    expect(fc.check(mintsNothing(tokenBucketCases, mutant), { numRuns: 400 }).failed).toBe(true);
  });

  it('catches a fixed window that reopens whatever window the clock names (mutant)', () => {
    const mutant = (c: Case) => bindAlgorithm(c, clockTrustingFixedWindow as never);
    expect(fc.check(mintsNothing(fixedWindowCases, mutant), { numRuns: 400 }).failed).toBe(true);
  });
});
