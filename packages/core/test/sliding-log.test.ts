/**
 * Sliding log contracts: exact over any rolling window (never more than L admitted in any interval of
 * length W, whatever its alignment); every decision equal to a slow reference model that keeps every
 * admitted unit's instant in a plain list; a cost of n occupies n entries; Retry-After is the instant
 * enough old entries leave the window; the limit is capped at MAX_LOG with a clear RangeError.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LOG, ManualClock, SlidingLogLimiter } from '../src/index.js';
import { earlyLeaveSlidingLog, oneEntrySlidingLog, undroppedSlidingLog } from './mutants/log-defects.js';
import { caseWithHistory, slidingLogCases } from './support/arbitraries.js';
import { expectFigures } from './support/figures.js';
import { type Case, type Subject, bindAlgorithm, realSubject } from './support/subjects.js';
import { runTable } from './support/table.js';
import { neverMoreThanLimitPerWindow } from './support/window-bound.js';
import { slidingLog } from '../src/store/index.js';

const T0 = 1_700_000_000_000; // a whole second

describe('sliding log tables', () => {
  it('admits 3 per rolling second and waits for the oldest entry to leave', () => {
    const clock = new ManualClock(T0);
    const limiter = new SlidingLogLimiter({ limit: 3, windowMs: 1000, clock });
    runTable(limiter, clock, T0, [
      { at: 0, allowed: true, remaining: 2, resetAfterMs: 1000 },
      { at: 100, cost: 2, allowed: true, remaining: 0, resetAfterMs: 1000 },
      { at: 200, allowed: false, remaining: 0, retryAfterMs: 800, resetAfterMs: 900 },
      { at: 999, op: 'peek', allowed: false, retryAfterMs: 1, resetAfterMs: 101 },
      { at: 1000, allowed: true, remaining: 0, resetAfterMs: 1000 },
      { at: 1000, cost: 2, allowed: false, remaining: 0, retryAfterMs: 100, resetAfterMs: 1000 },
      { at: 1099, op: 'peek', cost: 2, allowed: false, retryAfterMs: 1 },
      { at: 1100, cost: 2, allowed: true, remaining: 0, resetAfterMs: 1000 },
      { at: 1100, cost: 4, allowed: false, remaining: 0, retryAfterMs: Infinity, resetAfterMs: 1000 },
      { at: 3000, op: 'peek', cost: 3, allowed: true, remaining: 0, resetAfterMs: 1000 },
    ]);
  });

  it('lets no second limit through across a window boundary, unlike the fixed window', () => {
    const clock = new ManualClock(T0);
    const limiter = new SlidingLogLimiter({ limit: 5, windowMs: 1000, clock });
    runTable(limiter, clock, T0, [
      { at: 999, cost: 5, allowed: true, remaining: 0 },
      { at: 1000, cost: 5, allowed: false, retryAfterMs: 999 },
      { at: 1000, allowed: false, retryAfterMs: 999 },
      { at: 1998, allowed: false, retryAfterMs: 1 },
      { at: 1999, cost: 5, allowed: true, remaining: 0 },
    ]);
  });

  it(`admits exactly ${MAX_LOG} at one instant at the largest limit, then the next one a window later`, () => {
    const clock = new ManualClock(T0);
    const limiter = new SlidingLogLimiter({ limit: MAX_LOG, windowMs: 60_000, clock });
    let admitted = 0;
    while (admitted <= MAX_LOG && limiter.allow('k')) admitted++;
    expect(admitted).toBe(MAX_LOG);
    expect(limiter.consume('k')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 60_000 });
    clock.advance(60_000);
    expect(limiter.consume('k', MAX_LOG)).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 60_000 });
  });

  it('keeps limit + 1 numbers per key: the ring and its head', () => {
    expect(slidingLog(1).stateSize).toBe(2);
    expect(slidingLog(60).stateSize).toBe(61);
  });
});

/**
 * neverMoreThanLimitInAnyInterval: on a clock moving forward, for every pair of admissions i ≤ j less
 * than W apart, the cost admitted from i to j is at most L. Every interval of length W is covered,
 * since the tightest one starts at an admission.
 */
function neverMoreThanLimitInAnyInterval(subjectFor: (c: Case) => Subject) {
  return fc.property(caseWithHistory(slidingLogCases, { maxLength: 80, oversize: true }), ({ c, start, moves }) => {
    const subject = subjectFor(c);
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
      for (let j = i; j < admitted.length && (admitted[j] as { at: number }).at - (admitted[i] as { at: number }).at < c.scaleMs; j++) {
        sum += (admitted[j] as { cost: number }).cost;
        if (sum > c.limit) throw new Error(`admitted ${sum} > ${c.limit} within ${c.scaleMs} ms (admissions ${i}..${j})`);
      }
    }
  });
}

/**
 * matchesReferenceModel: each decision equals a slow model over the list of every admitted unit's
 * instant: a unit admitted at t counts while now < t + W; a request fits when the units counting plus
 * its cost are at most L; it waits until the oldest units that must go have left; the key is empty W
 * after its newest unit.
 */
function matchesReferenceModel(subjectFor: (c: Case) => Subject) {
  return fc.property(caseWithHistory(slidingLogCases, { maxLength: 60, oversize: true }), ({ c, start, moves }) => {
    const subject = subjectFor(c);
    const W = c.scaleMs;
    const L = c.limit;
    const units: number[] = [];
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const inside = units.filter((t) => now < t + W);
      const allowed = move.cost <= L && inside.length + move.cost <= L;
      const mustLeave = inside.length + move.cost - L;
      const retryAfterMs = allowed ? 0 : move.cost > L ? Infinity : (inside[mustLeave - 1] as number) + W - now;
      const newest = allowed ? now : units.length > 0 ? (units[units.length - 1] as number) : -Infinity;
      const want = { allowed, remaining: L - inside.length - (allowed ? move.cost : 0), retryAfterMs, resetAfterMs: Math.max(0, newest + W - now) };
      const d = subject.consume('k', now, move.cost);
      const got = { allowed: d.allowed, remaining: d.remaining, retryAfterMs: d.retryAfterMs, resetAfterMs: d.resetAfterMs };
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`step ${i} at ${now} (cost ${move.cost}): want ${JSON.stringify(want)} got ${JSON.stringify(got)}`);
      if (allowed) for (let n = 0; n < move.cost; n++) units.push(now);
    }
  });
}

describe('sliding log properties', () => {
  it('never admits more than L in any interval of length W, whatever its alignment', () => {
    fc.assert(
      neverMoreThanLimitInAnyInterval((c) => realSubject(c)),
      { numRuns: 300 },
    );
  });

  it('never admits more than L in one epoch-aligned window either', () => {
    fc.assert(
      neverMoreThanLimitPerWindow(slidingLogCases, (c) => realSubject(c)),
      { numRuns: 200 },
    );
  });

  it('decides as the reference model over the list of admitted units', () => {
    fc.assert(
      matchesReferenceModel((c) => realSubject(c)),
      { numRuns: 300 },
    );
  });

  it('decides the same through allow (the in-place admit) as through consume', () => {
    fc.assert(
      fc.property(caseWithHistory(slidingLogCases, { keys: 2, maxLength: 60, oversize: true }), ({ c, start, moves }) => {
        const viaAllow = realSubject(c);
        const viaConsume = realSubject(c);
        let now = start;
        for (const [i, move] of moves.entries()) {
          now += move.dt;
          const a = viaAllow.allow(move.key, now, move.cost);
          if (a !== viaConsume.consume(move.key, now, move.cost).allowed) throw new Error(`step ${i}: allow said ${a}`);
        }
        expect(JSON.stringify(viaAllow.peek('k0', now, 1))).toBe(JSON.stringify(viaConsume.peek('k0', now, 1)));
      }),
      { numRuns: 200 },
    );
  });

  it('catches a log whose entries leave the window 1 ms early (mutant)', () => {
    const mutant = (c: Case) => bindAlgorithm(c, earlyLeaveSlidingLog(c.limit) as never);
    expect(fc.check(neverMoreThanLimitInAnyInterval(mutant), { numRuns: 300 }).failed).toBe(true);
    expect(fc.check(matchesReferenceModel(mutant), { numRuns: 300 }).failed).toBe(true);
  });

  it('catches a log that records a request of cost n as one entry (mutant)', () => {
    const mutant = (c: Case) => bindAlgorithm(c, oneEntrySlidingLog(c.limit) as never);
    expect(fc.check(neverMoreThanLimitInAnyInterval(mutant), { numRuns: 300 }).failed).toBe(true);
    expect(fc.check(matchesReferenceModel(mutant), { numRuns: 300 }).failed).toBe(true);
  });

  it('catches a log that never drops old entries (mutant)', () => {
    const mutant = (c: Case) => bindAlgorithm(c, undroppedSlidingLog(c.limit) as never);
    expect(fc.check(matchesReferenceModel(mutant), { numRuns: 300 }).failed).toBe(true);
  });
});
