/**
 * Mutant: an adapter whose requests end when their clients disconnect (the response reads as answered
 * at that moment), as every adapter did before: a lease goes back while its handler still works, so a
 * client beats a concurrency limit by disconnecting. workSuite must catch it.
 */
import type { RequestHandler } from 'express';
import { endsAtDisconnect } from '@ratekeeper/adapter-contract';
import { type ExpressRateLimitOptions, rateLimit } from '../../src/index.js';

export function releasesAtDisconnect(options: ExpressRateLimitOptions): RequestHandler {
  const real = rateLimit(options);
  return function rateLimitMutant(req, res, next) {
    endsAtDisconnect(res);
    real(req, res, next);
  };
}
