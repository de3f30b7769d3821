/**
 * Mutant: an adapter that answers every denial with a hard-coded 429, so a store failing 'closed'
 * looks like the client's fault. closedFailureIs503 must catch it.
 */
import { prepareRateLimit } from '@ratekeeper/core/adapter';
import type { Request, RequestHandler } from 'express';
import type { ExpressRateLimitOptions } from '../../src/index.js';

export function closedAs429(options: ExpressRateLimitOptions): RequestHandler {
  const plan = prepareRateLimit<Request>('mutant', options, ['handler']);
  return function rateLimit(req, res, next) {
    Promise.resolve(plan.decide(req, req.ip)).then((decision) => {
      if (decision == null) return next();
      plan.writeHeaders(res, (r, name, value) => r.setHeader(name, value), decision);
      if (!plan.blocks(decision)) return next();
      res.status(429).json({ error: 'Too Many Requests' });
    }, next);
  };
}
