/**
 * Fixed window contracts: at most L cost per window of W aligned to multiples of W since the epoch,
 * Retry-After and reset at the window's end, and (the documented weakness) up to 2L across a boundary.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter, ManualClock } from '../src/index.js';
import { caseWithHistory, fixedWindowCases } from './support/arbitraries.js';
import { unitCheckFixedWindow } from './mutants/window-defects.js';
import { type Case, type Subject, bindAlgorithm, realSubject } from './support/subjects.js';
import { runTable } from './support/table.js';
import { neverMoreThanLimitPerWindow } from './support/window-bound.js';

const T0 = 1_700_000_000_000; // a whole second

describe('fixed window tables', () => {
  it('admits 3 per second, then waits for the next aligned second', () => {
    const clock = new ManualClock(T0);
    const limiter = new FixedWindowLimiter({ limit: 3, windowMs: 1000, clock });
    runTable(limiter, clock, T0, [
      { at: 100, allowed: true, remaining: 2, resetAfterMs: 900 },
      { at: 200, cost: 2, allowed: true, remaining: 0, resetAfterMs: 800 },
      { at: 300, allowed: false, remaining: 0, retryAfterMs: 700, resetAfterMs: 700 },
      { at: 999, op: 'peek', allowed: false, retryAfterMs: 1, resetAfterMs: 1 },
      { at: 1000, allowed: true, remaining: 2, resetAfterMs: 1000 },
      { at: 1000, cost: 4, allowed: false, remaining: 2, retryAfterMs: Infinity, resetAfterMs: 1000 },
      { at: 1500, cost: 3, allowed: false, remaining: 2, retryAfterMs: 500 },
      { at: 1500, cost: 2, allowed: true, remaining: 0 },
    ]);
  });

  it('lets 2L through across a window boundary, as documented', () => {
    const clock = new ManualClock(T0);
    const limiter = new FixedWindowLimiter({ limit: 5, windowMs: 1000, clock });
    runTable(limiter, clock, T0, [
      { at: 999, cost: 5, allowed: true, remaining: 0 },
      { at: 1000, cost: 5, allowed: true, remaining: 0 },
      { at: 1001, allowed: false, retryAfterMs: 999 },
    ]);
  });
});

/** matchesCountPerWindow: every decision equals a count of the admitted log inside the aligned window. */
function matchesCountPerWindow(subjectFor: (c: Case) => Subject) {
  return fc.property(caseWithHistory(fixedWindowCases, { maxLength: 60, oversize: true }), ({ c, start, moves }) => {
    const subject = subjectFor(c);
    const W = c.scaleMs;
    const log: { at: number; cost: number }[] = [];
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const windowStart = Math.floor(now / W) * W;
      const count = log.filter((r) => r.at >= windowStart).reduce((s, r) => s + r.cost, 0);
      const allowed = count + move.cost <= c.limit;
      const end = windowStart + W - now;
      const retryAfterMs = allowed ? 0 : move.cost > c.limit ? Infinity : end;
      const want = { allowed, remaining: c.limit - count - (allowed ? move.cost : 0), retryAfterMs, resetAfterMs: end };
      const d = subject.consume('k', now, move.cost);
      const got = { allowed: d.allowed, remaining: d.remaining, retryAfterMs: d.retryAfterMs, resetAfterMs: d.resetAfterMs };
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`step ${i} at ${now}: want ${JSON.stringify(want)} got ${JSON.stringify(got)}`);
      if (allowed) log.push({ at: now, cost: move.cost });
    }
  });
}

describe('fixed window properties', () => {
  it('never admits more than L in one epoch-aligned window', () => {
    fc.assert(
      neverMoreThanLimitPerWindow(fixedWindowCases, (c) => realSubject(c)),
      { numRuns: 300 },
    );
  });

  it('decides by the count of admitted cost inside the aligned window', () => {
    fc.assert(
      matchesCountPerWindow((c) => realSubject(c)),
      { numRuns: 300 },
    );
  });

  it('catches a window that checks one unit and records the whole cost (mutant)', () => {
    const mutant = (c: Case) => bindAlgorithm(c, unitCheckFixedWindow as never);
    expect(fc.check(neverMoreThanLimitPerWindow(fixedWindowCases, mutant), { numRuns: 300 }).failed).toBe(true);
    expect(fc.check(matchesCountPerWindow(mutant), { numRuns: 300 }).failed).toBe(true);
  });
});
