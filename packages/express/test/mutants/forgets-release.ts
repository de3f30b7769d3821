/**
 * Mutant: an adapter that does not hand core the client's socket (it answers none), so in delay mode a held request
 * whose client went away keeps its booking until its instant: units spent for nobody.
 * clientLeavesNoTrace must catch it.
 */
import { prepareRateLimit } from '@ratekeeper/core/adapter';
import type { Request, RequestHandler } from 'express';
import type { ExpressRateLimitOptions } from '../../src/index.js';

export function forgetsRelease(options: ExpressRateLimitOptions): RequestHandler {
  const plan = prepareRateLimit<Request>('mutant', options, ['handler'], { gone: (req) => req.socket.destroyed, socket: () => undefined });
  return function rateLimit(req, res, next) {
    Promise.resolve(plan.decide(req, req.ip)).then((decision) => {
      if (decision === undefined) return next();
      if (decision === null) return;
      plan.writeHeaders(res, (r, name, value) => r.setHeader(name, value), decision);
      if (!plan.blocks(decision)) return next();
      res.status(decision.failure === 'closed' ? 503 : 429).end();
    }, next);
  };
}
