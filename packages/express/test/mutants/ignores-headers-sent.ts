/**
 * Mutant: the real adapter minus its `res.headersSent` guard, so it writes headers on a response that
 * an earlier middleware already sent. nothingAfterHeadersSent must catch it.
 */
import { type Decision, limitedResponse } from '@ratekeeper/core';
import { prepareRateLimit } from '@ratekeeper/core/adapter';
import type { Request, RequestHandler, Response } from 'express';
import type { ExpressRateLimitOptions } from '../../src/index.js';

export function ignoresHeadersSent(options: ExpressRateLimitOptions): RequestHandler {
  const plan = prepareRateLimit<Request>('mutant', options, ['handler']);
  const respond = (res: Response, next: (e?: unknown) => void, decision: Decision | undefined | null) => {
    if (decision == null) return next();
    plan.writeHeaders(res, (r, name, value) => r.setHeader(name, value), decision);
    if (!plan.blocks(decision)) return next();
    const limited = limitedResponse(decision);
    res.status(limited.status).type(limited.contentType).send(limited.body);
  };
  return function rateLimit(req, res, next) {
    const outcome = plan.decide(req, req.ip);
    if (outcome instanceof Promise) outcome.then((d) => respond(res, next, d)).catch(next);
    else respond(res, next, outcome);
  };
}
