/**
 * MUTANTS of the first-request window, each wrapping the real step with a single defect:
 * - `alignedFirstRequestWindow` counts the epoch-aligned window instead (the fixed window under the
 *   first-request window's policy): the behaviour this algorithm exists to replace.
 * - `extendingFirstRequestWindow` restarts the window at every admitted request (express-rate-limit's
 *   "reset the expiry on change" slip): a steady client never sees its window end.
 */
import type { Algorithm, FirstRequestWindowPolicy } from '../../src/index.js';
import { firstRequestWindow, fixedWindow } from '../../src/store/index.js';

// Without `admit`, so that `allow` goes through the defective evaluate too.
const { admit: _admit, ...step } = firstRequestWindow;

export const alignedFirstRequestWindow: Algorithm<FirstRequestWindowPolicy> = {
  ...step,
  evaluate: (policy, state, offset, now, cost, out) => fixedWindow.evaluate({ ...policy, algorithm: 'fixed-window' }, state, offset, now, cost, out),
};

export const extendingFirstRequestWindow: Algorithm<FirstRequestWindowPolicy> = {
  ...step,
  evaluate(policy, state, offset, now, cost, out) {
    firstRequestWindow.evaluate(policy, state, offset, now, cost, out);
    if (out.allowed) {
      out.next[0] = now;
      out.ttlMs = policy.windowMs;
      out.resetAfterMs = policy.windowMs;
    }
  },
};
