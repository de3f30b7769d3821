/**
 * MUTANTS of the sliding log, each wrapping the real step with a single defect:
 * - `earlyLeaveSlidingLog` lets a logged unit leave the window 1 ms early (the off-by-one `<` for `<=`
 *   at the boundary), so L + 1 units fit in an interval of exactly W.
 * - `oneEntrySlidingLog` logs one instant per request whatever its cost, so a request of cost n
 *   occupies one slot and the log under-counts.
 * - `undroppedSlidingLog` never lets a unit leave once L are logged: a log that forgets to drop old
 *   entries, denying a key forever.
 */
import { type Algorithm, type SlidingLogPolicy } from '../../src/index.js';
import { slidingLog } from '../../src/store/index.js';

/** The real step without its in-place admit, so that `allow` goes through the mutated evaluate too. */
function evaluateOnly(limit: number): Algorithm<SlidingLogPolicy> {
  const { admit: _admit, ...rest } = slidingLog(limit);
  return rest;
}

/** The real step under a policy whose window is 1 ms shorter: every boundary comparison is off by one. */
export function earlyLeaveSlidingLog(limit: number): Algorithm<SlidingLogPolicy> {
  const real = evaluateOnly(limit);
  const shorter = (p: SlidingLogPolicy): SlidingLogPolicy => ({ ...p, windowMs: p.windowMs - 1 });
  return {
    ...real,
    evaluate: (policy, state, offset, now, cost, out) => real.evaluate(policy.windowMs > 1 ? shorter(policy) : policy, state, offset, now, cost, out),
  };
}

export function oneEntrySlidingLog(limit: number): Algorithm<SlidingLogPolicy> {
  const real = evaluateOnly(limit);
  return {
    ...real,
    evaluate(policy, state, offset, now, cost, out) {
      real.evaluate(policy, state, offset, now, cost, out);
      if (!out.allowed || cost === 1) return;
      // Undo the cost − 1 extra slots: record the request as a single unit.
      const logged = new Float64Array(out.next.length);
      real.evaluate(policy, state, offset, now, 1, { ...out, next: logged });
      out.next.set(logged);
    },
  };
}

export function undroppedSlidingLog(limit: number): Algorithm<SlidingLogPolicy> {
  const real = evaluateOnly(limit);
  const forever = (p: SlidingLogPolicy): SlidingLogPolicy => ({ ...p, windowMs: 2 ** 50 });
  return {
    ...real,
    evaluate(policy, state, offset, now, cost, out) {
      real.evaluate(forever(policy), state, offset, now, cost, out);
      if (out.allowed) out.resetAfterMs = out.ttlMs = policy.windowMs;
    },
  };
}
