/**
 * Mutant: middleware that fails closed on a store error by answering 500 with the error's text, so
 * the store's message (a connection string, a password) reaches the client. secretNeverLeaks must
 * catch it.
 */
import { ipKey } from '@ratekeeper/core';
import type { MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';

export function reportsStoreError(options: HonoRateLimitOptions): MiddlewareHandler {
  const limiter = options.limiter!;
  return async function rateLimit(c, next) {
    try {
      await limiter.consume(ipKey(options.getConnInfo?.(c).remote.address) ?? 'unknown');
    } catch (error) {
      return c.json({ error: 'rate limiter unavailable', reason: String(error) }, 500);
    }
    await next();
  };
}
