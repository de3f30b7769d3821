/**
 * MUTANTS. Retry-After computed wrongly, each wrapped around a real algorithm:
 * - `floorRetryTokenBucket` rounds the token bucket's wait down instead of up (redis-cell#56 class): the
 *   client is told to come back before the request can fit.
 * - `lateRetry` promises one millisecond more than needed: honest, but not exact.
 */
import { type Algorithm, type Policy, type TokenBucketPolicy } from '../../src/index.js';
import { tokenBucket } from '../../src/store/index.js';

export const floorRetryTokenBucket: Algorithm<TokenBucketPolicy> = {
  ...tokenBucket,
  evaluate(policy, state, offset, now, cost, out) {
    tokenBucket.evaluate(policy, state, offset, now, cost, out);
    if (out.allowed || out.retryAfterMs === Infinity || state === undefined) return;
    const tat = state[offset] as number;
    const t = Math.max(now, tat - policy.burstMs);
    const allowAt = Math.max(tat, t) + cost * policy.intervalMs - policy.burstMs;
    out.retryAfterMs = Math.max(1, Math.floor(allowAt - now));
  },
};

export function lateRetry<P extends Policy>(algorithm: Algorithm<P>): Algorithm<P> {
  return {
    ...algorithm,
    evaluate(policy, state, offset, now, cost, out) {
      algorithm.evaluate(policy, state, offset, now, cost, out);
      if (!out.allowed && out.retryAfterMs !== Infinity) out.retryAfterMs += 1;
    },
  };
}
