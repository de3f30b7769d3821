/**
 * MUTANTS. A classic token bucket (state [tokens, lastRefill]) with one switchable defect each. With
 * both switches off it is a correct bucket; the property tests run it that way too, so a mutant that
 * fails shows the defect was caught, not the change of representation.
 * - `uncapped`: refill is not capped at capacity, so idle time stores more than a burst.
 * - `trustsBackwardClock`: `lastRefill` follows the clock backwards, so the same stretch of time is
 *   refilled twice when the clock returns (x/time/rate's JumpBackwards bug class).
 */
import type { Algorithm, TokenBucketPolicy } from '../../src/index.js';

export interface Defects {
  readonly uncapped?: boolean;
  readonly trustsBackwardClock?: boolean;
}

export function classicTokenBucket(defects: Defects = {}): Algorithm<TokenBucketPolicy> {
  return {
    name: 'token-bucket',
    stateSize: 2,
    evaluate(policy, state, offset, now, cost, out) {
      let tokens = policy.capacity;
      let last = now;
      if (state !== undefined) {
        const stored = state[offset + 1] as number;
        const refill = (Math.max(0, now - stored) * policy.refillPerSecond) / 1000;
        tokens = (state[offset] as number) + refill;
        if (!defects.uncapped && tokens > policy.capacity) tokens = policy.capacity;
        last = defects.trustsBackwardClock ? now : Math.max(now, stored);
      }
      const whole = Math.floor(tokens + 1e-9);
      out.allowed = cost <= whole;
      if (out.allowed) {
        out.next[0] = tokens - cost;
        out.next[1] = last;
      }
      out.remaining = Math.max(0, out.allowed ? whole - cost : whole);
      out.retryAfterMs = out.allowed ? 0 : cost > policy.capacity ? Infinity : Math.max(1, Math.ceil(((cost - tokens) * 1000) / policy.refillPerSecond));
      out.resetAfterMs = Math.max(0, Math.ceil(((policy.capacity - tokens + (out.allowed ? cost : 0)) * 1000) / policy.refillPerSecond));
      out.ttlMs = out.allowed ? out.resetAfterMs : 0;
    },
    emptyAt(policy, state, offset) {
      return (state[offset + 1] as number) + ((policy.capacity - (state[offset] as number)) * 1000) / policy.refillPerSecond;
    },
    fill(policy, state, offset, now) {
      const refill = (Math.max(0, now - (state[offset + 1] as number)) * policy.refillPerSecond) / 1000;
      return Math.max(0, policy.capacity - (state[offset] as number) - refill) / policy.capacity;
    },
  };
}
