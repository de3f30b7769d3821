/**
 * Mutant: middleware over @ratekeeper/fetch that ends an admitted request's work when its client
 * disconnects (`c.req.raw.signal` aborts): it hands an empty Response over at that moment, so the
 * lease goes back while the route still works. workSuite must catch it.
 */
import { rateLimit as fetchRateLimit } from '@ratekeeper/fetch';
import type { Context, MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';

export function releasesAtDisconnect(options: HonoRateLimitOptions): MiddlewareHandler {
  const { getConnInfo, ip, ...rest } = options;
  const limit = fetchRateLimit<Context>(rest, (c) => c.req.raw);
  return async function rateLimitMutant(c, next) {
    const limited = await limit(c, { ip: ip !== undefined ? ip(c) : getConnInfo?.(c).remote.address });
    if (limited !== undefined) return limited;
    c.req.raw.signal.addEventListener('abort', () => void limit.finish(c, new Response(null)), { once: true });
    await next();
    c.res = limit.finish(c, c.res);
  };
}
