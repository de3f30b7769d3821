/**
 * Sliding-window counter contracts: the seed's example (4 per second: after 4 at the start of one
 * second, exactly 2 more fit 500 ms into the next); never more than L in one epoch-aligned fixed
 * window; and every decision equal to an independent slow model of the weighted estimate
 * previous·(W − elapsed)/W + current, recomputed from the log of admitted requests.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, SlidingWindowLimiter } from '../src/index.js';
import { currentWeightedSlidingWindow } from './mutants/window-defects.js';
import { caseWithHistory, slidingWindowCases } from './support/arbitraries.js';
import { type Case, type Subject, bindAlgorithm, realSubject } from './support/subjects.js';
import { runTable } from './support/table.js';
import { neverMoreThanLimitPerWindow } from './support/window-bound.js';

const T0 = 1_700_000_000_000; // a whole second

describe('sliding window tables', () => {
  it('fits exactly 2 more 500 ms into the second after 4 at the start of one, at 4 per second', () => {
    const clock = new ManualClock(T0);
    const limiter = new SlidingWindowLimiter({ limit: 4, windowMs: 1000, clock });
    runTable(limiter, clock, T0, [
      { at: 0, allowed: true, remaining: 3, resetAfterMs: 2000 },
      { at: 0, allowed: true, remaining: 2 },
      { at: 0, allowed: true, remaining: 1 },
      { at: 0, allowed: true, remaining: 0 },
      { at: 0, allowed: false, remaining: 0, retryAfterMs: 1250, resetAfterMs: 2000 },
      { at: 1500, allowed: true, remaining: 1, resetAfterMs: 1500 },
      { at: 1500, allowed: true, remaining: 0 },
      { at: 1500, allowed: false, remaining: 0, retryAfterMs: 250, resetAfterMs: 1500 },
      { at: 1749, op: 'peek', allowed: false, retryAfterMs: 1 },
      { at: 1750, allowed: true, remaining: 0 },
      { at: 3000, op: 'peek', allowed: true, remaining: 3, resetAfterMs: 2000 },
      { at: 4000, op: 'peek', cost: 4, allowed: true, remaining: 0 },
      { at: 4000, cost: 5, allowed: false, remaining: 4, retryAfterMs: Infinity, resetAfterMs: 0 },
    ]);
  });

  it('spreads a limit of 3 per 60 s smoothly across the boundary', () => {
    const clock = new ManualClock(T0);
    const limiter = new SlidingWindowLimiter({ limit: 3, windowMs: 60_000, clock });
    const start = Math.floor(T0 / 60_000) * 60_000;
    runTable(limiter, clock, start, [
      { at: 59_000, cost: 3, allowed: true, remaining: 0 },
      { at: 60_000, allowed: false, retryAfterMs: 20_000 },
      { at: 80_000, allowed: true, remaining: 0 },
      { at: 100_000, allowed: true, remaining: 0 },
      { at: 100_001, allowed: false, retryAfterMs: 19_999 },
      { at: 119_999, op: 'peek', allowed: false, retryAfterMs: 1 },
      { at: 120_000, op: 'peek', allowed: true, remaining: 0 },
    ]);
  });
});

/**
 * matchesSlowModel: each decision equals the seed's formula evaluated from scratch over the log of
 * admitted requests (clock moving forward only): allowed iff the request fits, remaining as whole
 * units with the previous window's weight rounded up, and the time until the key is empty.
 */
function matchesSlowModel(subjectFor: (c: Case) => Subject) {
  return fc.property(caseWithHistory(slidingWindowCases, { maxLength: 60, oversize: true }), ({ c, start, moves }) => {
    const subject = subjectFor(c);
    const W = c.scaleMs;
    const L = c.limit;
    const log: { at: number; cost: number }[] = [];
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const windowStart = Math.floor(now / W) * W;
      const sum = (from: number) => log.filter((r) => r.at >= from && r.at < from + W).reduce((s, r) => s + r.cost, 0);
      const previous = sum(windowStart - W);
      const current = sum(windowStart);
      const weighted = previous * (W - (now - windowStart)); // the previous term, scaled by W
      const allowed = move.cost <= L && weighted + (current + move.cost) * W <= L * W;
      const held = L - current - Math.ceil(weighted / W) - (allowed ? move.cost : 0);
      const emptyAt = allowed || current > 0 ? windowStart + 2 * W : previous > 0 ? windowStart + W : now;
      const want = { allowed, remaining: Math.max(0, held), resetAfterMs: emptyAt - now };
      const d = subject.consume('k', now, move.cost);
      const got = { allowed: d.allowed, remaining: d.remaining, resetAfterMs: d.resetAfterMs };
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        throw new Error(`step ${i} at ${now} (cost ${move.cost}, previous ${previous}, current ${current}): want ${JSON.stringify(want)} got ${JSON.stringify(got)}`);
      }
      if (allowed) log.push({ at: now, cost: move.cost });
    }
  });
}

describe('sliding window properties', () => {
  it('never admits more than L in one epoch-aligned fixed window', () => {
    fc.assert(
      neverMoreThanLimitPerWindow(slidingWindowCases, (c) => realSubject(c)),
      { numRuns: 300 },
    );
  });

  it('decides as the weighted estimate computed from scratch over the admitted log', () => {
    fc.assert(
      matchesSlowModel((c) => realSubject(c)),
      { numRuns: 300 },
    );
  });

  it('catches an estimate that also weights the current window by elapsed time (mutant)', () => {
    const mutant = (c: Case) => bindAlgorithm(c, currentWeightedSlidingWindow as never);
    expect(fc.check(neverMoreThanLimitPerWindow(slidingWindowCases, mutant), { numRuns: 300 }).failed).toBe(true);
    expect(fc.check(matchesSlowModel(mutant), { numRuns: 300 }).failed).toBe(true);
  });
});
