/**
 * MUTANTS of the window algorithms, each wrapping the real one with a single defect:
 * - `clockTrustingFixedWindow` starts a fresh window whenever the clock names a different one, so a
 *   clock that steps back (and returns) opens the same window again and again.
 * - `earlyEmptySlidingWindow` reports a sliding-window key empty one window early, while its count still
 *   weighs on the next window: a store that drops "empty" state then forgets requests that still count.
 * - `unitCheckFixedWindow` checks whether one more unit fits and then records the whole cost (the
 *   "check before adding the cost" slip), so a request of cost n passes with a single unit left.
 * - `currentWeightedSlidingWindow` weights the current window's count by the elapsed fraction as well,
 *   so a burst late in one fixed window can exceed the limit inside it.
 */
import { type Algorithm, type FixedWindowPolicy, type SlidingWindowPolicy } from '../../src/index.js';
import { fixedWindow, slidingWindow } from '../../src/store/index.js';

export const clockTrustingFixedWindow: Algorithm<FixedWindowPolicy> = {
  ...fixedWindow,
  evaluate(policy, state, offset, now, cost, out) {
    const start = Math.floor(now / policy.windowMs) * policy.windowMs;
    const trusted = state !== undefined && state[offset] === start ? state : undefined;
    fixedWindow.evaluate(policy, trusted, offset, now, cost, out);
  },
};

export const earlyEmptySlidingWindow: Algorithm<SlidingWindowPolicy> = {
  ...slidingWindow,
  emptyAt: (policy, state, offset) => (state[offset] as number) + policy.windowMs,
};

export const currentWeightedSlidingWindow: Algorithm<SlidingWindowPolicy> = {
  ...slidingWindow,
  evaluate(policy, state, offset, now, cost, out) {
    const W = policy.windowMs;
    const start = Math.floor(now / W) * W;
    if (state === undefined || state[offset] !== start) return slidingWindow.evaluate(policy, state, offset, now, cost, out);
    // Scale the stored current count by the elapsed fraction before deciding.
    const scaled = [state[offset] as number, state[offset + 1] as number, Math.floor(((state[offset + 2] as number) * (now - start)) / W)];
    slidingWindow.evaluate(policy, scaled, 0, now, cost, out);
    if (out.allowed) out.next[2] = (state[offset + 2] as number) + cost;
  },
};

export const unitCheckFixedWindow: Algorithm<FixedWindowPolicy> = {
  ...fixedWindow,
  evaluate(policy, state, offset, now, cost, out) {
    fixedWindow.evaluate(policy, state, offset, now, 1, out);
    if (!out.allowed) return;
    out.next[1] = (out.next[1] as number) + cost - 1;
    out.remaining = Math.max(0, out.remaining - (cost - 1));
  },
};
