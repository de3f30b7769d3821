/**
 * Token bucket: a bucket of `capacity` tokens, initially full, refilled at `refillPerSecond`; a request
 * of cost n takes n tokens or is denied. Any interval of length T admits at most capacity + rate·T cost
 * per key, and idle time never stores more than `capacity`.
 *
 * State is one number, the theoretical arrival time `tat` (the GCRA form): the instant the bucket will
 * be full again. Tokens at time t are capacity − (tat − t) / interval, capped at capacity. A request of
 * cost n fits at t when max(tat, t) + n·interval − burst ≤ t, where burst = capacity·interval.
 *
 * A clock that steps back never mints tokens: a state written at time w has tat ≤ w + burst, so `now` is
 * raised to at least tat − burst. Small steps back cost tokens; long ones hold the key at an empty
 * bucket until the clock catches up. Retry-After stays honest in both cases because it is computed from
 * the absolute instant the request would fit.
 */
import type { Algorithm, StepOutput } from '../algorithm.js';
import type { TokenBucketPolicy } from '../policy.js';

/** EPSILON absorbs float error when whole tokens are counted for `remaining` (interval may be fractional). */
const EPSILON = 1e-9;

export const tokenBucket: Algorithm<TokenBucketPolicy> = {
  name: 'token-bucket',
  stateSize: 1,

  evaluate(policy, state, offset, now, cost, out) {
    const interval = policy.intervalMs;
    const burst = policy.burstMs;
    const tat = state === undefined ? now : (state[offset] as number);
    const earliest = tat - burst;
    const t = now > earliest ? now : earliest;
    const base = tat > t ? tat : t;
    if (cost > policy.capacity) return deny(out, Infinity, Math.floor((burst - (base - t)) / interval + EPSILON), base - now);
    const next = base + cost * interval;
    const allowAt = next - burst;
    if (allowAt <= t) {
      out.allowed = true;
      out.remaining = Math.floor((t - allowAt) / interval + EPSILON);
      out.retryAfterMs = 0;
      out.resetAfterMs = out.ttlMs = Math.ceil(next - now);
      out.next[0] = next;
      return;
    }
    deny(out, Math.ceil(allowAt - now), Math.floor((burst - (base - t)) / interval + EPSILON), base - now);
  },

  emptyAt(_policy, state, offset) {
    return state[offset] as number;
  },
};

function deny(out: StepOutput, retryAfterMs: number, remaining: number, resetAfterMs: number): void {
  out.allowed = false;
  out.retryAfterMs = retryAfterMs;
  out.remaining = remaining > 0 ? remaining : 0;
  out.resetAfterMs = Math.ceil(resetAfterMs);
  out.ttlMs = 0;
}
