/**
 * Mutant: middleware over @ratekeeper/fetch that does not tell it where the Request is (no `raw`), so
 * the check cannot see `c.req.raw.signal` abort: a client gone during an async key lookup is counted
 * and the route runs for nobody. goneClientUncounted must catch it.
 */
import { rateLimit as fetchRateLimit } from '@ratekeeper/fetch';
import type { Context, MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';

export function ignoresGone(options: HonoRateLimitOptions): MiddlewareHandler {
  const { getConnInfo, ip, ...rest } = options;
  const limit = fetchRateLimit<Context>(rest);
  return async function rateLimitMutant(c, next) {
    const limited = await limit(c, { ip: ip !== undefined ? ip(c) : getConnInfo?.(c).remote.address });
    if (limited !== undefined) return limited;
    await next();
  };
}
