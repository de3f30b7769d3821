/**
 * Mutant: the Express wiring before issue 7 (item 4). On an async limiter the answer runs as
 * `outcome.then(respond, next)`, and respond writes the headers outside any try: a header the response
 * refuses throws inside the promise callback, where `next` (the second argument of the same `then`)
 * cannot see it. The request is never answered and the rejection is unhandled, which kills a process
 * in Node's default mode. The decision-errors suite must catch it.
 */
import { type Decision } from '@ratekeeper/core';
import { LimitedBodies, prepareRateLimit } from '@ratekeeper/core/adapter';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ExpressRateLimitOptions } from '../../src/index.js';

const setHeader = (res: Response, name: string, value: string, append: boolean): void => {
  if (append) res.appendHeader(name, value);
  else res.setHeader(name, value);
};

export function thenRespond(options: ExpressRateLimitOptions): RequestHandler {
  const plan = prepareRateLimit<Request>('rateLimit', options, ['handler']);
  const bodies = new LimitedBodies(plan.limiter.policies);
  const respond = (req: Request, res: Response, next: NextFunction, decision: Decision): void => {
    if (res.headersSent) return;
    plan.writeHeaders(res, setHeader, decision);
    if (!plan.blocks(decision)) return next();
    try {
      if (options.handler !== undefined) void options.handler(req, res, decision);
      else {
        const body = bodies.get(decision);
        res.status(body.status).type(body.contentType).send(body.bytes);
      }
    } catch (error) {
      next(error);
    }
  };
  return function rateLimit(req, res, next) {
    let outcome: ReturnType<typeof plan.decide>;
    try {
      outcome = plan.decide(req, req.ip);
    } catch (error) {
      next(error);
      return;
    }
    if (outcome === undefined) next();
    else if (outcome instanceof Promise) outcome.then((decision) => (decision == null ? next() : respond(req, res, next, decision)), next);
    else respond(req, res, next, outcome);
  };
}
