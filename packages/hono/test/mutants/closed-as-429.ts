/**
 * Mutant: middleware that answers every blocked request with a hard-coded 429, so a store failing
 * 'closed' looks like the client's fault. closedFailureIs503 must catch it.
 */
import type { MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function closedAs429(options: HonoRateLimitOptions): MiddlewareHandler {
  const real = rateLimit(options);
  return async function rateLimitMutant(c, next) {
    const limited = await real(c, next);
    return limited instanceof Response ? new Response(limited.body, { status: 429, headers: limited.headers }) : limited;
  };
}
