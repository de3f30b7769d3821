/**
 * Mutant: an adapter that asks the limiter itself and forwards the store's rejection as it is, so the
 * store's message (a connection string, a password) reaches Express's error page. secretNeverLeaks
 * must catch it.
 */
import { ipKey, limitedResponse } from '@ratekeeper/core';
import type { RequestHandler } from 'express';
import type { ExpressRateLimitOptions } from '../../src/index.js';

export function forwardsRawError(options: ExpressRateLimitOptions): RequestHandler {
  const limiter = options.limiter!;
  return function rateLimit(req, res, next) {
    Promise.resolve(limiter.consume(ipKey(req.ip) ?? 'unknown')).then((decision) => {
      if (decision.allowed) return next();
      const limited = limitedResponse(decision);
      res.status(limited.status).type(limited.contentType).send(limited.body);
    }, next);
  };
}
