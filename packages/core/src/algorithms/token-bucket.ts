/**
 * Token bucket: a bucket of `capacity` tokens, initially full, refilled at `refillPerSecond`; a request
 * of cost n takes n tokens or is denied. Any interval of length T admits at most capacity + rate·T cost
 * per key, and idle time never stores more than `capacity`.
 *
 * State is one number, the theoretical arrival time (the GCRA form) measured on the token clock
 * u = now / intervalMs, that is in refill intervals since the epoch: the token-clock instant at which
 * the bucket is full again. Tokens at token time u are capacity − (tat − u), capped at capacity; a
 * request of cost n fits at u when max(tat, u) + n − capacity ≤ u.
 *
 * Why the token clock and not milliseconds: epoch milliseconds are near 2^41, where a double resolves
 * only 2^-12 ms, so a tat kept in milliseconds gathers one rounding per admission and a bucket of 11 at
 * 40.19/s admitted 10 at once. On the token clock every admission adds a whole number, which is exact,
 * and the only rounding left is u itself: a monotone function of `now`, so every decision is that of
 * an exact bucket read at a clock quantised below a microsecond. Millisecond figures (retryAfterMs,
 * resetAfterMs, the key's empty instant) are the first whole millisecond at which the token clock
 * reaches the instant in question, so Retry-After is exact: the same request fits at now + retryAfterMs
 * and not one millisecond earlier. Rates are validated to at most 1e6/s, where u stays below 2^52.
 *
 * A clock that steps back never mints tokens: a state written at time w has tat ≤ w + capacity, so the
 * clock is raised to at least tat − capacity. Small steps back cost tokens; long ones hold the key at
 * an empty bucket until the clock catches up. Retry-After stays honest in both cases because it is
 * computed from the absolute instant the request would fit.
 */
import type { Algorithm, StepOutput } from '../algorithm.js';
import type { TokenBucketPolicy } from '../policy.js';

export const tokenBucket: Algorithm<TokenBucketPolicy> = {
  name: 'token-bucket',
  stateSize: 1,

  evaluate(policy, state, offset, now, cost, out) {
    const interval = policy.intervalMs;
    const capacity = policy.capacity;
    const u = now / interval;
    const tat = state === undefined ? u : (state[offset] as number);
    const earliest = tat - capacity;
    const t = u > earliest ? u : earliest;
    const base = tat > t ? tat : t;
    const slack = slackOf(base, capacity);
    const tokens = Math.floor(capacity - (base - t) + slack);
    if (cost > capacity) return deny(out, Infinity, tokens, instantOf(base, interval, 0) - now);
    const allowAt = base + (cost - capacity);
    if (allowAt - t <= slack) {
      const next = base + cost;
      out.allowed = true;
      out.remaining = tokens > cost ? tokens - cost : 0;
      out.retryAfterMs = 0;
      out.resetAfterMs = out.ttlMs = instantOf(next, interval, 0) - now;
      out.next[0] = next;
      return;
    }
    deny(out, instantOf(allowAt, interval, slack) - now, tokens, instantOf(base, interval, 0) - now);
  },

  admit(policy, state, offset, now, cost) {
    const capacity = policy.capacity;
    const u = now / policy.intervalMs;
    const tat = state[offset] as number;
    const earliest = tat - capacity;
    const t = u > earliest ? u : earliest;
    const base = tat > t ? tat : t;
    if (cost > capacity || base + (cost - capacity) - t > slackOf(base, capacity)) return false;
    state[offset] = base + cost;
    return true;
  },

  emptyAt(policy, state, offset) {
    return instantOf(state[offset] as number, policy.intervalMs, 0);
  },

  /** fill is the tokens taken at `now` (tat − t on the token clock, as evaluate reads it) over capacity. */
  fill(policy, state, offset, now) {
    const capacity = policy.capacity;
    const tat = state[offset] as number;
    const u = now / policy.intervalMs;
    const t = u > tat - capacity ? u : tat - capacity;
    return tat > t ? (tat - t) / capacity : 0;
  },

  /**
   * refund moves the theoretical arrival time back by `cost` whole tokens, but never before the read
   * instant t (a full bucket): tokens never exceed capacity. Whole-number steps keep it exact.
   */
  refund(policy, state, offset, now, cost, out) {
    const interval = policy.intervalMs;
    const u = now / interval;
    const tat = state[offset] as number;
    const earliest = tat - policy.capacity;
    const t = u > earliest ? u : earliest;
    if (!(tat > t)) return false;
    const back = tat - cost;
    const next = back > t ? back : t;
    out.next[0] = next;
    out.ttlMs = instantOf(next, interval, 0) - now;
    return true;
  },

  /**
   * charge takes `cost` tokens whatever is left, moving the theoretical arrival time past the read
   * instant t as an admission does: a bucket in debt is denied until the debt is paid back by refill.
   */
  charge(policy, state, offset, now, cost, out) {
    const interval = policy.intervalMs;
    const u = now / interval;
    const tat = state === undefined ? u : (state[offset] as number);
    const earliest = tat - policy.capacity;
    const t = u > earliest ? u : earliest;
    const next = (tat > t ? tat : t) + cost;
    out.next[0] = next;
    out.ttlMs = instantOf(next, interval, 0) - now;
  },

  /**
   * usage is the tokens taken at `now` (tat − u on the token clock, rounded up past the comparison's
   * slack, so that remaining is exactly evaluate's tokens): above capacity for a bucket in debt. A
   * clock stepped back reads as more taken, never as fewer.
   */
  usage(policy, state, offset, now, out) {
    const capacity = policy.capacity;
    const u = now / policy.intervalMs;
    const tat = state === undefined ? u : (state[offset] as number);
    const taken = tat > u ? Math.ceil(tat - u - slackOf(tat, capacity)) : 0;
    out.used = taken > 0 ? taken : 0;
    out.remaining = capacity > out.used ? capacity - out.used : 0;
    const reset = tat > u ? instantOf(tat, policy.intervalMs, 0) - now : 0;
    out.resetAfterMs = out.used > 0 && reset > 0 ? reset : 0;
  },
};

/**
 * slackOf is the rounding a token-clock figure near `base` may carry: one unit in the last place of the
 * largest magnitude involved. A state written as u + k (u fractional) is rounded once when the sum
 * crosses into a wider binade, so a bucket first used at u = 0.028 would otherwise find itself
 * 2.0000000000000004 tokens in debt after two admissions and deny the last token of its burst.
 * Comparisons allow this much; it can never add up to a whole token (nothing is accumulated).
 */
function slackOf(base: number, capacity: number): number {
  return ((base < 0 ? -base : base) + capacity) * 2.220446049250313e-16;
}

/**
 * instantOf is the first whole millisecond m at which the token clock m / interval reaches `at` (within
 * `slack`, as the decision compares). The product is within a millisecond of it; the two loops settle
 * the last step with the same division and comparison the decision uses, so the answer agrees with
 * `evaluate` exactly. Within the validated range each loop runs at most twice; the bound only keeps an
 * absurd clock reading from spinning.
 */
export function instantOf(at: number, interval: number, slack: number): number {
  let m = Math.ceil(at * interval);
  for (let i = 0; i < 4 && at - m / interval > slack; i++) m++;
  for (let i = 0; i < 4 && at - (m - 1) / interval <= slack; i++) m--;
  return m;
}

function deny(out: StepOutput, retryAfterMs: number, remaining: number, resetAfterMs: number): void {
  out.allowed = false;
  out.retryAfterMs = retryAfterMs;
  out.remaining = remaining > 0 ? remaining : 0;
  out.resetAfterMs = resetAfterMs > 0 ? resetAfterMs : 0;
  out.ttlMs = 0;
}
