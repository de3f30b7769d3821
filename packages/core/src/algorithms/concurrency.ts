/**
 * Concurrency: at most `limit` units in flight per key. The state is one number, the units leased and
 * not yet released. A lease of `cost` is admitted while leased + cost ≤ limit; a release (the refund
 * step) gives units back, never below zero. Time plays no part: nothing refills by waiting, so a held
 * lease never expires on this step's account (a remote store expires the leases of a crashed process
 * on its own: see @ratekeeper/redis), and `now` is read by nothing here.
 *
 * Edge values: a cost above `limit` can never be granted (`retryAfterMs: Infinity`, no Retry-After);
 * any other denial suggests `policy.retryAfterMs`, a hint and not a promise, since no one knows when a
 * request in flight will end. `resetAfterMs` is 0 when the key is idle after the step, the hint
 * otherwise (the same honesty limit). `emptyAt` is Infinity for a key holding leases, which together
 * with `pinned` keeps the memory store from ever dropping or evicting it (memory/memory-binding.ts).
 */
import type { Algorithm } from '../algorithm.js';
import type { ConcurrencyPolicy } from '../policy.js';

export const concurrency: Algorithm<ConcurrencyPolicy> = {
  name: 'concurrency',
  stateSize: 1,
  pinned: true,

  evaluate(policy, state, offset, _now, cost, out) {
    const leased = state === undefined ? 0 : (state[offset] as number);
    if (leased + cost <= policy.limit) {
      out.allowed = true;
      out.remaining = policy.limit - leased - cost;
      out.retryAfterMs = 0;
      out.resetAfterMs = policy.retryAfterMs;
      out.ttlMs = Infinity;
      out.next[0] = leased + cost;
      return;
    }
    out.allowed = false;
    out.remaining = policy.limit - leased;
    out.retryAfterMs = cost > policy.limit ? Infinity : policy.retryAfterMs;
    out.resetAfterMs = leased > 0 ? policy.retryAfterMs : 0;
    out.ttlMs = 0;
  },

  emptyAt(_policy, state, offset) {
    return (state[offset] as number) > 0 ? Infinity : -Infinity;
  },

  fill(policy, state, offset) {
    return (state[offset] as number) / policy.limit;
  },

  refund(_policy, state, offset, _now, cost, out) {
    const leased = state[offset] as number;
    if (leased <= 0) return false;
    out.next[0] = leased > cost ? leased - cost : 0;
    out.ttlMs = out.next[0] > 0 ? Infinity : 0;
    return true;
  },
};
