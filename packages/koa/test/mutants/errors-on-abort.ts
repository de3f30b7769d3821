/**
 * Mutant: an adapter that treats a client gone during the decision as an error and throws it into
 * Koa's error path, which floods the logs (and error trackers) with every impatient client.
 * abortedClientsAreQuiet must catch it.
 */
import type { Middleware } from 'koa';
import type { KoaRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function errorsOnAbort(options: KoaRateLimitOptions): Middleware {
  const real = rateLimit(options);
  return async function rateLimitMutant(ctx, next) {
    await real(ctx, async () => {
      if (ctx.req.socket.destroyed) throw new Error('client closed the connection');
      await next();
    });
  };
}
