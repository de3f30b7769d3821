/**
 * Mutant: a token-bucket refund done from the client as GET, then the pure refund step, then SET —
 * correct arithmetic, but not atomic: a consume that lands between the GET and the SET is overwritten,
 * so concurrent consumes and refunds over-admit. The concurrency property of test/refund.test.ts must
 * catch it.
 */
import { type ManualClock, type RateLimiter, type TokenBucketLimiter } from '@ratekeeper/core';
import { stepOutput, tokenBucket } from '@ratekeeper/core/store';
import type { Redis } from 'ioredis';
import { storageKey } from '../../src/index.js';

export function racyRefund(limiter: TokenBucketLimiter<'async'>, redis: Redis, prefix: string, clock: ManualClock): RateLimiter<'async'> {
  return {
    mode: 'async',
    policies: limiter.policies,
    consume: (key, cost) => limiter.consume(key, cost),
    peek: (key, cost) => limiter.peek(key, cost),
    allow: (key, cost) => limiter.allow(key, cost),
    reset: (key) => limiter.reset(key),
    async refund(key, cost = 1) {
      const redisKey = storageKey(prefix, limiter.policy.name, key);
      const raw = await redis.getBuffer(redisKey);
      if (raw === null) return;
      const out = stepOutput(1);
      if (!tokenBucket.refund!(limiter.policy, [raw.readDoubleLE(0)], 0, clock.now(), cost, out)) return;
      const next = Buffer.alloc(8);
      next.writeDoubleLE(out.next[0] as number);
      await redis.set(redisKey, next, 'PX', Math.max(1, Math.ceil(out.ttlMs)));
    },
  };
}
