/**
 * Mutant: middleware that writes the rate-limit headers with `c.header` before `next()`, the obvious
 * Hono idiom, which Hono drops when the route returns a Response it built itself (`new Response`,
 * `fetch()`, `Response.redirect`). headersReachOwnResponses must catch it.
 */
import { prepareRateLimit } from '@ratekeeper/core/adapter';
import type { Context, MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';

export function headersBeforeNext(options: HonoRateLimitOptions): MiddlewareHandler {
  const { ip, getConnInfo: _unused, ...rest } = options;
  const plan = prepareRateLimit<Context>('rateLimit', rest, ['handler']);
  return async function rateLimit(c, next) {
    const decision = await plan.decide(c, ip?.(c) ?? undefined);
    if (decision == null) return next();
    plan.writeHeaders(c, (ctx, name, value, append) => ctx.header(name, value, { append }), decision);
    if (plan.blocks(decision)) return c.text('Too Many Requests', 429);
    await next();
  };
}
