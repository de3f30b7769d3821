/**
 * Mutant: an adapter that hands core a response whose 'close' is read as 'finish', i.e. it releases a
 * lease when the response completes and forgets the aborted ones (the client's socket destroyed
 * mid-response emits 'close' without 'finish'). leasesSuite must catch it.
 */
import type { Middleware } from 'koa';
import { closeOnFinish } from '@ratekeeper/adapter-contract';
import type { KoaRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function forgetsAborts(options: KoaRateLimitOptions): Middleware {
  const real = rateLimit(options);
  return function rateLimitMutant(ctx, next) {
    // On a synchronous limiter the middleware hands the response to core before its first await.
    const undo = closeOnFinish(ctx.res);
    try {
      return real(ctx, next);
    } finally {
      undo();
    }
  };
}
