/**
 * Mutant: the real adapter minus its `ctx.headerSent` guard, so it passes on a request an earlier
 * middleware already answered and runs the rest of the app for nothing. nothingAfterHeadersSent must
 * catch it.
 */
import { limitedResponse } from '@ratekeeper/core';
import { prepareRateLimit } from '@ratekeeper/core/adapter';
import type { Context, Middleware } from 'koa';
import type { KoaRateLimitOptions } from '../../src/index.js';

export function ignoresHeadersSent(options: KoaRateLimitOptions): Middleware {
  const plan = prepareRateLimit<Context>('mutant', options, ['handler']);
  return async function rateLimit(ctx, next) {
    const outcome = plan.decide(ctx, ctx.ip);
    if (outcome === undefined) return next();
    const decision = outcome instanceof Promise ? await outcome : outcome;
    if (decision == null) return next();
    plan.writeHeaders(ctx, (c, name, value) => c.set(name, value), decision);
    if (!plan.blocks(decision)) return next();
    const limited = limitedResponse(decision);
    ctx.status = limited.status;
    ctx.set('Content-Type', limited.contentType);
    ctx.body = limited.body;
  };
}
