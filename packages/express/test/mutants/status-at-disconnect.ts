/**
 * Mutant: an adapter that reports an aborted request with the status its response had when the client
 * left (Node's default 200) instead of its handler's answer: the login recipe gives every aborted
 * failed login back. abortedOutcomeSuite must catch it.
 */
import type { RequestHandler } from 'express';
import { statusAtDisconnect } from '@ratekeeper/adapter-contract';
import { type ExpressRateLimitOptions, rateLimit } from '../../src/index.js';

export function reportsStatusAtDisconnect(options: ExpressRateLimitOptions): RequestHandler {
  const real = rateLimit(options);
  return function rateLimitMutant(req, res, next) {
    statusAtDisconnect(res);
    real(req, res, next);
  };
}
