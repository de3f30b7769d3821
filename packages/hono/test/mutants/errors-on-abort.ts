/**
 * Mutant: middleware that treats a client gone during the decision (its request's signal aborted) as
 * an error and throws it at app.onError, flooding the logs with every impatient client.
 * abortedClientsAreQuiet must catch it.
 */
import type { MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function errorsOnAbort(options: HonoRateLimitOptions): MiddlewareHandler {
  const real = rateLimit(options);
  return async function rateLimitMutant(c, next) {
    return real(c, async () => {
      if (c.req.raw.signal.aborted) throw new Error('client closed the connection');
      await next();
    });
  };
}
