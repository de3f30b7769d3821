/**
 * Mutant: an adapter that answers every denial with a hard-coded 429, so a store failing 'closed'
 * looks like the client's fault. closedFailureIs503 must catch it.
 */
import { prepareRateLimit } from '@ratekeeper/core/adapter';
import type { Context, Middleware } from 'koa';
import type { KoaRateLimitOptions } from '../../src/index.js';

export function closedAs429(options: KoaRateLimitOptions): Middleware {
  const plan = prepareRateLimit<Context>('mutant', options, ['handler']);
  return async function rateLimit(ctx, next) {
    const decision = await plan.decide(ctx, ctx.ip);
    if (decision == null) return next();
    plan.writeHeaders(ctx, (c, name, value) => c.set(name, value), decision);
    if (!plan.blocks(decision)) return next();
    ctx.status = 429;
    ctx.body = { error: 'Too Many Requests' };
  };
}
