/**
 * retryAfterMs is exact for every algorithm and for composites: absent other traffic, the same request
 * at now + retryAfterMs is allowed and at now + retryAfterMs − 1 it is denied. `peek` at those instants
 * is the "absent other traffic" replay (peek records nothing; denial.test.ts proves it). Infinity is
 * reserved for costs no wait can ever grant.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neverSatisfiable } from '../src/index.js';
import { fixedWindow, slidingWindow, slidingLog } from '../src/store/index.js';
import { floorRetryTokenBucket, lateRetry } from './mutants/retry-after.js';
import { anyTarget, fixedWindowCases, slidingLogCases, slidingWindowCases, targetWithHistory, tokenBucketCases } from './support/arbitraries.js';
import { expectFigures } from './support/figures.js';
import { type Target, bindAlgorithm, single } from './support/subjects.js';

function retryAfterIsExact(targets: fc.Arbitrary<Target>) {
  return fc.property(targetWithHistory(targets, { keys: 2, maxLength: 50, oversize: true }), ({ t, start, moves }) => {
    const subject = t.make();
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const d = subject.consume(move.key, now, move.cost);
      expectFigures(d, `step ${i}`);
      if (d.allowed) continue;
      if (d.retryAfterMs === Infinity) {
        if (move.cost <= t.limit || !neverSatisfiable(d)) throw new Error(`step ${i}: cost ${move.cost} of ${t.limit} called never satisfiable`);
        continue;
      }
      const at = subject.peek(move.key, now + d.retryAfterMs, move.cost);
      const before = subject.peek(move.key, now + d.retryAfterMs - 1, move.cost);
      if (!at.allowed || before.allowed) {
        throw new Error(`step ${i} at ${now}: retryAfterMs ${d.retryAfterMs}, but allowed at +${d.retryAfterMs}: ${at.allowed}, at +${d.retryAfterMs - 1}: ${before.allowed}`);
      }
    }
  });
}

describe('retryAfterMs', () => {
  it('is exact for every algorithm and every composite', () => {
    fc.assert(retryAfterIsExact(anyTarget), { numRuns: 400 });
  });

  it('is Infinity exactly when the cost exceeds the limit: no wait can grant it', () => {
    fc.assert(
      fc.property(anyTarget, fc.integer({ min: 1, max: 50 }), (t, extra) => {
        const subject = t.make();
        const d = subject.consume('k', 1_700_000_000_000, t.limit + extra);
        expect(neverSatisfiable(d)).toBe(true);
        expect(subject.consume('k', 1_700_000_000_000, t.limit).allowed).toBe(true);
      }),
    );
  });

  it('catches a token bucket that rounds the wait down (mutant)', () => {
    const floored = tokenBucketCases.map((c) => single(c, (x) => bindAlgorithm(x, floorRetryTokenBucket as never)));
    expect(fc.check(retryAfterIsExact(floored), { numRuns: 400 }).failed).toBe(true);
  });

  it('catches windows that promise one millisecond more than needed (mutants)', () => {
    const lateSliding = slidingWindowCases.map((c) => single(c, (x) => bindAlgorithm(x, lateRetry(slidingWindow) as never)));
    const lateFixed = fixedWindowCases.map((c) => single(c, (x) => bindAlgorithm(x, lateRetry(fixedWindow) as never)));
    expect(fc.check(retryAfterIsExact(lateSliding)).failed).toBe(true);
    expect(fc.check(retryAfterIsExact(lateFixed)).failed).toBe(true);
  });

  it('catches a sliding log that promises one millisecond more than needed (mutant)', () => {
    const lateLog = slidingLogCases.map((c) => single(c, (x) => bindAlgorithm(x, lateRetry(slidingLog(x.limit)) as never)));
    expect(fc.check(retryAfterIsExact(lateLog)).failed).toBe(true);
  });
});
