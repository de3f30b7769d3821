/**
 * Mutants of rate-limiter-flexible's verbs, each a fixed window otherwise real:
 * - chargeAsConsume: a charge that records only what the limit allows (the old MIGRATING advice,
 *   "penalty = consume a higher cost"), so a charge past the limit records nothing;
 * - usageAsPeek: a usage read that answers peek's figure for one more unit (the off-by-one of porting
 *   rate-limiter-flexible's `get` to `peek`).
 * The properties of charge-usage.test.ts must catch both.
 */
import type { Algorithm, FixedWindowPolicy } from '../../src/index.js';
import { fixedWindow, stepOutput } from '../../src/store/index.js';

export const chargeAsConsume: Algorithm<FixedWindowPolicy> = {
  ...fixedWindow,
  charge(policy, state, offset, now, cost, out) {
    fixedWindow.evaluate(policy, state, offset, now, cost, out);
    if (out.allowed) return;
    (fixedWindow.charge as NonNullable<typeof fixedWindow.charge>)(policy, state, offset, now, 0, out);
  },
};

export const usageAsPeek: Algorithm<FixedWindowPolicy> = {
  ...fixedWindow,
  usage(policy, state, offset, now, out) {
    const step = stepOutput(2);
    fixedWindow.evaluate(policy, state, offset, now, 1, step);
    out.remaining = step.remaining;
    out.used = policy.limit - step.remaining;
    out.resetAfterMs = step.resetAfterMs;
  },
};
