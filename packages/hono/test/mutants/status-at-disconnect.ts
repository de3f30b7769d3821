/**
 * Mutant: middleware over @ratekeeper/fetch that hands over, for a request whose client left, the
 * Response the client would have seen at that moment (an empty 200) instead of the route's answer:
 * the login recipe gives every aborted failed login back. abortedOutcomeSuite must catch it.
 */
import { rateLimit as fetchRateLimit } from '@ratekeeper/fetch';
import type { Context, MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';

export function reportsStatusAtDisconnect(options: HonoRateLimitOptions): MiddlewareHandler {
  const { getConnInfo, ip, ...rest } = options;
  const limit = fetchRateLimit<Context>(rest, (c) => c.req.raw);
  return async function rateLimitMutant(c, next) {
    const limited = await limit(c, { ip: ip !== undefined ? ip(c) : getConnInfo?.(c).remote.address });
    if (limited !== undefined) return limited;
    await next();
    if (c.req.raw.signal.aborted) limit.finish(c, new Response(null));
    else c.res = limit.finish(c, c.res);
  };
}
