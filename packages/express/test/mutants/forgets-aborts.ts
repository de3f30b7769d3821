/**
 * Mutant: an adapter that hands core a response whose 'close' is read as 'finish', i.e. it releases a
 * lease when the response completes and forgets the aborted ones (the client's socket destroyed
 * mid-response emits 'close' without 'finish'). leasesSuite must catch it.
 */
import type { RequestHandler } from 'express';
import { closeOnFinish } from '@ratekeeper/adapter-contract';
import type { ExpressRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function forgetsAborts(options: ExpressRateLimitOptions): RequestHandler {
  const real = rateLimit(options);
  return function rateLimitMutant(req, res, next) {
    const undo = closeOnFinish(res);
    try {
      real(req, res, next);
    } finally {
      undo();
    }
  };
}
