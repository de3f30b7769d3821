/**
 * Mutant: an adapter that fails closed on a store error by answering 503 with the error's text, so
 * the store's message (a connection string, a password) reaches the client. secretNeverLeaks must
 * catch it.
 */
import { ipKey, limitedResponse } from '@ratekeeper/core';
import type { Middleware } from 'koa';
import type { KoaRateLimitOptions } from '../../src/index.js';

export function reportsStoreError(options: KoaRateLimitOptions): Middleware {
  const limiter = options.limiter!;
  return async function rateLimit(ctx, next) {
    let decision;
    try {
      decision = await limiter.consume(ipKey(ctx.ip) ?? 'unknown');
    } catch (error) {
      ctx.status = 500;
      ctx.body = { error: 'rate limiter unavailable', reason: String(error) };
      return;
    }
    if (decision.allowed) return next();
    const limited = limitedResponse(decision);
    ctx.status = limited.status;
    ctx.body = limited.body;
  };
}
