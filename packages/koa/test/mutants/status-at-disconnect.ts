/**
 * Mutant: an adapter that reports an aborted request with the status its response had when the client
 * left (Koa's default 404) instead of its handler's answer: the login recipe gives every aborted
 * failed login back. abortedOutcomeSuite must catch it.
 */
import type { Middleware } from 'koa';
import { statusAtDisconnect } from '@ratekeeper/adapter-contract';
import { type KoaRateLimitOptions, rateLimit } from '../../src/index.js';

export function reportsStatusAtDisconnect(options: KoaRateLimitOptions): Middleware {
  const real = rateLimit(options);
  return function rateLimitMutant(ctx, next) {
    statusAtDisconnect(ctx.res);
    return real(ctx, next);
  };
}
