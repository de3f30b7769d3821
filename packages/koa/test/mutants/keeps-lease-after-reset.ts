/**
 * Mutant: a lease kept after an RST. The adapter hands core a response whose 'close' is heard only
 * when its headers had been sent, so the work of a response closed before it was sent (an HTTP/2
 * stream the client reset before its handler answered) is dropped: its lease is not given back when
 * the handler answers. rapidResetSuite must catch it.
 */
import type { Middleware } from 'koa';
import { closeWhenSent } from '@ratekeeper/adapter-contract';
import type { KoaRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function keepsLeaseAfterReset(options: KoaRateLimitOptions): Middleware {
  const real = rateLimit(options);
  return function rateLimitMutant(ctx, next) {
    // On a synchronous limiter the middleware hands the response to core before its first await.
    const undo = closeWhenSent(ctx.res);
    try {
      return real(ctx, next);
    } finally {
      undo();
    }
  };
}
