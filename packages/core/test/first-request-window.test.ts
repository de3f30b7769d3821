/**
 * First-request window contracts: at most L cost per window of W that starts at the key's first request
 * (the first that finds no live window), Retry-After and reset at the end of that key's own window, a
 * denial starting nothing, and decisions equal to a tiny reference model's on the memory store.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FirstRequestWindowLimiter, ManualClock } from '../src/index.js';
import { alignedFirstRequestWindow, extendingFirstRequestWindow } from './mutants/first-request-window-defects.js';
import { caseWithHistory, firstRequestWindowCases } from './support/arbitraries.js';
import { expectFigures } from './support/figures.js';
import { type Case, type Subject, bindAlgorithm, realSubject } from './support/subjects.js';
import { runTable } from './support/table.js';

const T0 = 1_700_000_000_000; // a whole second: the aligned window would reset at T0 + 1000

describe('first-request window tables', () => {
  it('starts the window at the first request and resets W later, not on the clock boundary', () => {
    const clock = new ManualClock(T0);
    const limiter = new FirstRequestWindowLimiter({ limit: 3, windowMs: 1000, clock });
    runTable(limiter, clock, T0, [
      { at: 700, allowed: true, remaining: 2, resetAfterMs: 1000 },
      { at: 900, cost: 2, allowed: true, remaining: 0, resetAfterMs: 800 },
      { at: 1000, allowed: false, remaining: 0, retryAfterMs: 700, resetAfterMs: 700 },
      { at: 1699, op: 'peek', allowed: false, retryAfterMs: 1, resetAfterMs: 1 },
      { at: 1700, allowed: true, remaining: 2, resetAfterMs: 1000 },
      { at: 1700, cost: 4, allowed: false, remaining: 2, retryAfterMs: Infinity, resetAfterMs: 1000 },
      { at: 2200, cost: 3, allowed: false, remaining: 2, retryAfterMs: 500 },
      { at: 2200, cost: 2, allowed: true, remaining: 0, resetAfterMs: 500 },
    ]);
  });

  it('gives each key its own window', () => {
    const clock = new ManualClock(T0);
    const limiter = new FirstRequestWindowLimiter({ limit: 1, windowMs: 10_000, clock });
    runTable(limiter, clock, T0, [
      { at: 0, key: 'a', allowed: true, resetAfterMs: 10_000 },
      { at: 4000, key: 'b', allowed: true, resetAfterMs: 10_000 },
      { at: 5000, key: 'a', allowed: false, retryAfterMs: 5000 },
      { at: 5000, key: 'b', allowed: false, retryAfterMs: 9000 },
      { at: 10_000, key: 'a', allowed: true, resetAfterMs: 10_000 },
      { at: 10_000, key: 'b', allowed: false, retryAfterMs: 4000 },
    ]);
  });

  it('starts no window on a denial or a peek', () => {
    const clock = new ManualClock(T0);
    const limiter = new FirstRequestWindowLimiter({ limit: 2, windowMs: 1000, clock });
    runTable(limiter, clock, T0, [
      { at: 0, cost: 3, allowed: false, remaining: 2, retryAfterMs: Infinity, resetAfterMs: 1000 },
      { at: 300, op: 'peek', allowed: true, remaining: 1, resetAfterMs: 1000 },
      { at: 600, allowed: true, remaining: 1, resetAfterMs: 1000 },
      { at: 1599, allowed: true, remaining: 0, resetAfterMs: 1 },
      { at: 1600, allowed: true, remaining: 1, resetAfterMs: 1000 },
    ]);
  });

  it('holds the stored window when the clock steps back before its start', () => {
    const clock = new ManualClock(T0);
    const limiter = new FirstRequestWindowLimiter({ limit: 1, windowMs: 1000, clock });
    runTable(limiter, clock, T0, [
      { at: 500, allowed: true },
      { at: 200, allowed: false, remaining: 0, retryAfterMs: 1300, resetAfterMs: 1300 },
      { at: 1499, allowed: false, retryAfterMs: 1 },
      { at: 1500, allowed: true },
    ]);
  });

  it('gives back a refund inside the live window only', () => {
    const clock = new ManualClock(T0);
    const limiter = new FirstRequestWindowLimiter({ limit: 2, windowMs: 1000, clock });
    runTable(limiter, clock, T0, [{ at: 100, cost: 2, allowed: true, remaining: 0 }]);
    clock.set(T0 + 400);
    limiter.refund('k', 1);
    runTable(limiter, clock, T0, [
      { at: 500, allowed: true, remaining: 0, resetAfterMs: 600 },
      { at: 600, allowed: false, retryAfterMs: 500 },
    ]);
  });
});

/**
 * The reference model, written from the definition alone: a key's window is [start, start + W); a
 * request at `now` with no live window would start one at `now`; it is admitted when the window's
 * admitted cost plus its own is at most L, and only an admission records anything.
 */
class Reference {
  readonly #windows = new Map<string, { start: number; count: number }>();
  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  consume(key: string, now: number, cost: number) {
    const held = this.#windows.get(key);
    const live = held !== undefined && now < held.start + this.windowMs ? held : { start: now, count: 0 };
    const allowed = live.count + cost <= this.limit;
    const end = live.start + this.windowMs - now;
    if (allowed) this.#windows.set(key, { start: live.start, count: live.count + cost });
    return {
      allowed,
      remaining: this.limit - live.count - (allowed ? cost : 0),
      retryAfterMs: allowed ? 0 : cost > this.limit ? Infinity : end,
      resetAfterMs: end,
    };
  }
}

/** matchesReference: on a forward clock, every decision of the subject equals the reference model's. */
function matchesReference(subjectFor: (c: Case) => Subject) {
  return fc.property(caseWithHistory(firstRequestWindowCases, { keys: 2, maxLength: 60, oversize: true }), ({ c, start, moves }) => {
    const subject = subjectFor(c);
    const model = new Reference(c.limit, c.scaleMs);
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const want = model.consume(move.key, now, move.cost);
      const d = subject.consume(move.key, now, move.cost);
      const got = { allowed: d.allowed, remaining: d.remaining, retryAfterMs: d.retryAfterMs, resetAfterMs: d.resetAfterMs };
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`step ${i} at ${now} key ${move.key}: want ${JSON.stringify(want)} got ${JSON.stringify(got)}`);
    }
  });
}

/**
 * ownWindowsHold: read from the decisions alone, each admission belongs to the window ending at
 * now + resetAfterMs; a window ends exactly W after its first admission, admits at most L, and a key's
 * windows never overlap. resetAfterMs is never more than W.
 */
function ownWindowsHold(subjectFor: (c: Case) => Subject) {
  return fc.property(caseWithHistory(firstRequestWindowCases, { keys: 2, maxLength: 80, oversize: true }), ({ c, start, moves }) => {
    const subject = subjectFor(c);
    const windows = new Map<string, { first: number; end: number; count: number }>();
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const d = subject.consume(move.key, now, move.cost);
      expectFigures(d, `step ${i}`);
      if (d.resetAfterMs > c.scaleMs) throw new Error(`step ${i}: resetAfterMs ${d.resetAfterMs} > windowMs ${c.scaleMs}`);
      if (!d.allowed) continue;
      const end = now + d.resetAfterMs;
      const w = windows.get(move.key);
      if (w === undefined || w.end !== end) {
        if (w !== undefined && now < w.end) throw new Error(`step ${i}: a window ending ${end} opened inside the one ending ${w.end}`);
        if (end - now !== c.scaleMs) throw new Error(`step ${i}: a window opened at ${now} ends ${end - now} ms later, not ${c.scaleMs}`);
        windows.set(move.key, { first: now, end, count: move.cost });
        continue;
      }
      w.count += move.cost;
      if (w.count > c.limit) throw new Error(`step ${i}: the window opened at ${w.first} admitted ${w.count} > limit ${c.limit}`);
    }
  });
}

describe('first-request window properties', () => {
  it('decides exactly as the reference model on the memory store (differential)', () => {
    fc.assert(
      matchesReference((c) => realSubject(c)),
      { numRuns: 300 },
    );
  });

  it('never admits more than L in a window started at a first request, and resets within W', () => {
    fc.assert(
      ownWindowsHold((c) => realSubject(c)),
      { numRuns: 300 },
    );
  });

  it('catches the epoch-aligned window and a window restarted by every request (mutants)', () => {
    for (const mutant of [alignedFirstRequestWindow, extendingFirstRequestWindow]) {
      const subject = (c: Case) => bindAlgorithm(c, mutant as never);
      expect(fc.check(matchesReference(subject), { numRuns: 300 }).failed).toBe(true);
      expect(fc.check(ownWindowsHold(subject), { numRuns: 300 }).failed).toBe(true);
    }
  });
});
