/**
 * Sliding log: at most `limit` cost in ANY interval of `windowMs`, exactly. Each admitted unit leaves
 * its instant in a log; a unit admitted at t counts at every instant before t + W, so a request of cost
 * n fits at `now` when at most L − n logged units are younger than W. No boundary lets 2L through (the
 * fixed window's weakness) and nothing is estimated (the sliding-window counter's): the price is O(L)
 * state per key instead of two or three numbers.
 *
 * State is [head, ring of L instants], L + 1 numbers: the last L admitted units' instants, oldest at
 * `head`, in non-decreasing order; slots never written hold −Infinity (a unit admitted "forever ago").
 * Since the ring is sorted, the whole decision reads one slot: a request of cost n fits exactly when
 * the n-th oldest slot has left the window, and if not, it fits the instant that slot leaves, which is
 * Retry-After, exact. An admission overwrites the n oldest slots with now and moves head past them.
 * Counting the units inside the window (for `remaining`) is a binary search over the ring.
 *
 * A clock that steps back behind the newest logged instant is held at that instant (time going
 * backwards counts as no time passing), so the log stays sorted and no step back admits more.
 *
 * `slidingLog(limit)` makes the step for policies of that limit (the ring's length is the state size,
 * which the store needs before any policy is seen); SlidingLogLimiter validates limit ≤ MAX_LOG.
 * `evaluate` copies the whole ring into the next state (O(L)); `admit`, behind `allow`, writes only the
 * n slots it takes (O(n)).
 */
import type { Algorithm, StepOutput } from '../algorithm.js';
import type { SlidingLogPolicy } from '../policy.js';

/** MAX_LOG bounds a sliding log's limit: 10,000 instants are 80 KB per key in memory. */
export const MAX_LOG = 10_000;

/** slidingLog is the sliding-log step for policies of `limit` (its state is limit + 1 numbers). */
export function slidingLog(limit: number): Algorithm<SlidingLogPolicy> {
  const L = limit;
  /** slot reads the i-th oldest logged instant (0 ≤ i < L). */
  const slot = (state: ArrayLike<number>, offset: number, i: number): number => {
    const head = state[offset] as number;
    return state[offset + 1 + ((head + i) % L)] as number;
  };
  /** held is the instant the decision is taken at: now, or the newest logged instant if later. */
  const held = (state: ArrayLike<number>, offset: number, now: number): number => {
    const newest = slot(state, offset, L - 1);
    return now < newest ? newest : now;
  };
  /** younger counts the logged units still inside the window at `at` (binary search: the ring is sorted). */
  const younger = (state: ArrayLike<number>, offset: number, at: number, W: number): number => {
    let lo = 0;
    let hi = L;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (slot(state, offset, mid) + W <= at) lo = mid + 1;
      else hi = mid;
    }
    return L - lo;
  };

  return {
    name: 'sliding-log',
    stateSize: L + 1,

    evaluate(policy, state, offset, now, cost, out) {
      const W = policy.windowMs;
      if (state === undefined) {
        if (cost > L) return deny(out, Infinity, L, 0);
        const next = out.next;
        next.fill(-Infinity);
        next[0] = cost % L;
        next.fill(now, 1, 1 + cost);
        return admitted(out, L - cost, W);
      }
      const at = held(state, offset, now);
      const inside = younger(state, offset, at, W);
      const newest = slot(state, offset, L - 1);
      if (cost > L) return deny(out, Infinity, L - inside, Math.ceil(newest + W - now));
      const nth = slot(state, offset, cost - 1);
      if (nth + W > at) return deny(out, Math.ceil(nth + W - now), L - inside, Math.ceil(newest + W - now));
      const next = out.next;
      for (let i = 0; i <= L; i++) next[i] = state[offset + i] as number;
      write(next, 0, L, at, cost);
      return admitted(out, L - inside - cost, Math.ceil(at + W - now));
    },

    admit(policy, state, offset, now, cost) {
      if (cost > L) return false;
      const at = held(state, offset, now);
      if (slot(state, offset, cost - 1) + policy.windowMs > at) return false;
      write(state, offset, L, at, cost);
      return true;
    },

    emptyAt(policy, state, offset) {
      return slot(state, offset, L - 1) + policy.windowMs;
    },

    /**
     * refund drops the `cost` newest units still inside the window (at most all of them): they become
     * "forever ago" slots at the oldest end and head moves back past them, so the ring stays sorted and
     * never holds more than the units admitted net of refunds.
     */
    refund(policy, state, offset, now, cost, out) {
      const W = policy.windowMs;
      const inside = younger(state, offset, held(state, offset, now), W);
      if (inside === 0) return false;
      const k = cost < inside ? cost : inside;
      const next = out.next;
      for (let i = 0; i <= L; i++) next[i] = state[offset + i] as number;
      const head = next[0] as number;
      for (let j = 0; j < k; j++) next[1 + ((head + L - k + j) % L)] = -Infinity;
      next[0] = (head + L - k) % L;
      const ttl = slot(next, 0, L - 1) + W - now;
      out.ttlMs = ttl > 0 ? ttl : 0;
      return true;
    },

    /**
     * charge logs `cost` units at `now` (held as evaluate holds it) whatever the window holds: the log
     * keeps L instants, so a charge of L or more fills it with `now` and the key is denied for a whole
     * window, and the units past L are not kept (used never exceeds L here).
     */
    charge(policy, state, offset, now, cost, out) {
      const next = out.next;
      let at = now;
      if (state === undefined) {
        next.fill(-Infinity);
        next[0] = 0;
      } else {
        at = held(state, offset, now);
        for (let i = 0; i <= L; i++) next[i] = state[offset + i] as number;
      }
      write(next, 0, L, at, cost < L ? cost : L);
      out.ttlMs = Math.ceil(at + policy.windowMs - now);
    },

    /** usage is the units still inside the window at `now` (held as evaluate holds it). */
    usage(policy, state, offset, now, out) {
      if (state === undefined) {
        out.used = out.resetAfterMs = 0;
        out.remaining = L;
        return;
      }
      const inside = younger(state, offset, held(state, offset, now), policy.windowMs);
      out.used = inside;
      out.remaining = L - inside;
      const reset = Math.ceil(slot(state, offset, L - 1) + policy.windowMs - now);
      out.resetAfterMs = inside > 0 && reset > 0 ? reset : 0;
    },

    /** fill is the units still inside the window at `now` (held as evaluate holds it) over the limit. */
    fill(policy, state, offset, now) {
      return younger(state, offset, held(state, offset, now), policy.windowMs) / L;
    },
  };
}

/** write logs `cost` units at `at` over the oldest slots and moves head past them. */
function write(state: Float64Array, offset: number, L: number, at: number, cost: number): void {
  const head = state[offset] as number;
  for (let i = 0; i < cost; i++) state[offset + 1 + ((head + i) % L)] = at;
  state[offset] = (head + cost) % L;
}

function admitted(out: StepOutput, remaining: number, resetAfterMs: number): void {
  out.allowed = true;
  out.remaining = remaining;
  out.retryAfterMs = 0;
  out.resetAfterMs = out.ttlMs = resetAfterMs;
}

function deny(out: StepOutput, retryAfterMs: number, remaining: number, resetAfterMs: number): void {
  out.allowed = false;
  out.retryAfterMs = retryAfterMs;
  out.remaining = remaining > 0 ? remaining : 0;
  out.resetAfterMs = resetAfterMs > 0 ? resetAfterMs : 0;
  out.ttlMs = 0;
}
