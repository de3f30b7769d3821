/**
 * refundsLeases: a composite whose refund gives back to every member, its lease members included, so
 * a request whose outcome does not count returns its lease twice (once by release, once by refund):
 * the second return takes another request's lease while that request is still in flight. The
 * countOutcome test with overlapping requests in test/http/release.test.ts must catch it.
 */
import type { CompositeLimiter, RateLimiter } from '../../src/index.js';

export function refundsLeases(c: CompositeLimiter): RateLimiter<'sync'> {
  const release = (key: string, cost?: number) => c.release!(key, cost);
  return {
    mode: 'sync',
    policies: c.policies,
    consume: (key, cost) => c.consume(key, cost),
    peek: (key, cost) => c.peek(key, cost),
    allow: (key, cost) => c.allow(key, cost),
    reset: (key) => c.reset(key),
    refund: (key, cost) => (c.refund(key, cost), release(key, cost)),
    release,
  };
}
