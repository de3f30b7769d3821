/**
 * Mutant: middleware over @ratekeeper/fetch that forgets a request whose client left: the route's
 * answer is not handed over, so the lease is never released. leasesSuite must catch it.
 */
import { rateLimit as fetchRateLimit } from '@ratekeeper/fetch';
import type { Context, MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';

export function forgetsAborts(options: HonoRateLimitOptions): MiddlewareHandler {
  const { getConnInfo, ip, ...rest } = options;
  const limit = fetchRateLimit<Context>(rest, (c) => c.req.raw);
  return async function rateLimitMutant(c, next) {
    const limited = await limit(c, { ip: ip !== undefined ? ip(c) : getConnInfo?.(c).remote.address });
    if (limited !== undefined) return limited;
    await next();
    if (!c.req.raw.signal.aborted) c.res = limit.finish(c, c.res);
  };
}
