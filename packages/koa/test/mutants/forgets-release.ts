/**
 * Mutant: an adapter that does not hand core the client's socket (it answers none), so in delay mode a held request
 * whose client went away keeps its booking until its instant: units spent for nobody.
 * clientLeavesNoTrace must catch it.
 */
import { prepareRateLimit } from '@ratekeeper/core/adapter';
import type { Context, Middleware } from 'koa';
import type { KoaRateLimitOptions } from '../../src/index.js';

export function forgetsRelease(options: KoaRateLimitOptions): Middleware {
  const plan = prepareRateLimit<Context>('mutant', options, ['handler'], { gone: (ctx) => ctx.req.socket.destroyed, socket: () => undefined });
  return async function rateLimit(ctx, next) {
    const decision = await plan.decide(ctx, ctx.ip);
    if (decision === undefined) return next();
    if (decision === null) return;
    plan.writeHeaders(ctx, (c, name, value) => c.res.setHeader(name, value), decision);
    if (!plan.blocks(decision)) return next();
    ctx.status = decision.failure === 'closed' ? 503 : 429;
  };
}
