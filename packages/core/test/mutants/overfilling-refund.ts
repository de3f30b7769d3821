/**
 * Mutant: a fixed window whose refund subtracts the cost without stopping at zero, so refunding more
 * than was spent leaves a negative count and the window then admits more than its limit. (A token
 * bucket cannot be overfilled this way: its step reads any arrival time before now as a full bucket.)
 * The never-above-full property must catch it.
 */
import type { Algorithm, FixedWindowPolicy } from '../../src/index.js';
import { fixedWindow } from '../../src/store/index.js';

export const overfillingRefund: Algorithm<FixedWindowPolicy> = {
  ...fixedWindow,
  refund(policy, state, offset, now, cost, out) {
    const W = policy.windowMs;
    const stored = state[offset] as number;
    if (Math.floor(now / W) * W > stored) return false;
    out.next[0] = stored;
    out.next[1] = (state[offset + 1] as number) - cost;
    out.ttlMs = Math.ceil(stored + W - now);
    return true;
  },
};
