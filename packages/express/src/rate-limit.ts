/**
 * rateLimit is ratekeeper's Express middleware (Express 4 and 5): it keys the request, asks the limiter
 * once, writes the rate-limit headers, and then either passes the request on with `next()` or answers
 * it (429 `application/problem+json` by default, 503 when a store failing 'closed' decided).
 *
 * Everything but that translation lives in `@ratekeeper/core` (prepareRateLimit, then answerNode with
 * this framework's steps): option validation,
 * the default key (`req.ip`, so Express's own `trust proxy` setting decides whether X-Forwarded-For
 * counts; IPv6 grouped by prefix), header values and the problem body. Options are validated when
 * rateLimit is called, never per request.
 *
 * Every error on the decision path goes to `next(err)`, Express's error path (a 500), whether the
 * limiter is synchronous or answers with a promise: errors thrown by `key`, `skip`, `cost`,
 * `onDecision` or `handler`, a request without a usable IP (missingIp: 'reject'), a limiter that failed
 * or answered something that is not a Decision (core's RateLimiterError), and a header the response
 * refuses. `respond` never throws, so nothing can escape the promise chain as an unhandled rejection.
 * Nothing is written once `res.headersSent`: an answer someone else already sent ends the chain here.
 *
 * The trust-proxy check (core's proxy-check.ts) looks at requests until it has warned, naming
 * Express's `trust proxy` setting; proxyWarning: false turns it off. It never changes a decision.
 *
 * `key`, `skip`, `cost` and `plan` may be async (their rejections go to `next(err)` too). A request
 * whose socket closed while an async hook was being awaited is not counted and gets nothing more
 * (core's `gone`). The Decision is left on `req.rateLimit` (typed by the augmentation below) for
 * handlers and logs; with several limiters on one request, the last one's. With `countOutcome`,
 * `settle` or a limiter holding leases (ConcurrencyLimiter), every admitted request's response is
 * handed to core's watch as soon as the decision arrives (before anything can fail or find the
 * response already sent), so its lease is released, and its outcome reported, when its work is over
 * (core's http/settle/work.ts): the response completed or failed, or, when the client left first, the handler
 * answered anyway (Express has no other end to a handler). Without those options nothing is watched.
 *
 * On a synchronous limiter (the memory store) an allowed request costs one Decision and its header
 * strings: no promise and no closure per request. The client IP is `req.ip`, read without its
 * forwarding-header walk when Express's trust function does not trust the socket's peer (the default,
 * `trust proxy` off): proxy-addr then answers that peer's address whatever the headers say (clientIp).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Decision, ProxySetting, RateLimitOptions } from '@ratekeeper/core';
import {
  type Decided,
  type NodeAnswer,
  type PreparedRateLimit,
  answerNode,
  bySocket,
  describeValue,
  prepareRateLimit,
  replaceNodeHeader,
  sendLimited,
  setNodeHeader,
} from '@ratekeeper/core/adapter';
import { slotted } from './decision-slot.js';

declare global {
  // Express types its Request through this global namespace (express-serve-static-core).
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The decision of the last ratekeeper limiter this request went through (policy included). */
      rateLimit?: Decision;
    }
  }
}

const OWNER = 'rateLimit';
const PROXY: ProxySetting = {
  framework: 'Express',
  trust: "set Express's `trust proxy` setting to your proxy's addresses or hop count, e.g. app.set('trust proxy', 'loopback, 10.0.0.0/8') or app.set('trust proxy', 1)",
  restrict: "set Express's `trust proxy` setting to your proxies' addresses only, e.g. app.set('trust proxy', '10.0.0.0/8'), or leave it off (false) when clients connect directly",
};

/**
 * ExpressRateLimitOptions are core's adapter options plus the limited-response handler: a `limiter`,
 * one algorithm's shorthand options (each algorithm takes only its own), or `plans`, with the rest.
 */
export type ExpressRateLimitOptions = RateLimitOptions<Request> & {
  /**
   * Answers a request the limiter denied, after the rate-limit headers (and Retry-After) are written.
   * It runs with the status already set (429, or 503 for a 'closed' store failure), so
   * `res.send('Too many requests')` answers 429; `res.status(n)` still picks another.
   * Default: that status with an RFC 9457 problem+json body.
   * A thrown error or a rejected promise goes to Express's error path; any other value it returns
   * (`res.send(…)` returns the response) is ignored.
   */
  readonly handler?: (req: Request, res: Response, decision: Decision) => unknown;
};

type Handler = NonNullable<ExpressRateLimitOptions['handler']>;

/** rateLimit validates `options` and returns the middleware, for `app.use`, a Router or one route. */
export function rateLimit(options?: ExpressRateLimitOptions): RequestHandler {
  const prepared = prepareRateLimit<Request>(OWNER, options, ['handler'], { ...bySocket((req: Request) => req.socket), framework: 'express' });
  const custom = options?.handler;
  if (custom !== undefined && typeof custom !== 'function') {
    throw new TypeError(`${OWNER}: handler must be a function, got ${describeValue(custom)}`);
  }
  const answer = expressAnswer(custom);
  const proxy = prepared.watchProxy(PROXY);
  const resolved = (req: Request, res: Response, next: NextFunction, decided: Decided): void => {
    if (decided === undefined) next();
    else if (decided !== null) respond(prepared, answer, req, res, next, decided);
  };

  return function rateLimit(req: Request, res: Response, next: NextFunction): void {
    let decided: Decision | Promise<Decided> | undefined;
    try {
      const ip = clientIp(req);
      if (proxy.pending) proxy.observe(ip, req.socket.remoteAddress, req.headers);
      decided = prepared.decide(req, ip);
    } catch (error) {
      next(error);
      return;
    }
    if (decided === undefined) next();
    else if (decided instanceof Promise) decided.then((later) => resolved(req, res, next, later), next);
    else respond(prepared, answer, req, res, next, decided);
  };
}

/**
 * respond writes the headers and passes the request on or answers it (core's answerNode). It never
 * throws (it runs inside a promise callback on an async limiter, where a throw would be an unhandled
 * rejection): a header the response refuses and an error from the handler go to `next(err)`.
 */
function respond(prepared: PreparedRateLimit<Request>, answer: ExpressAnswer, req: Request, res: Response, next: NextFunction, decision: Decision): void {
  // First, whatever happens next: an admitted request's work is followed to its end (core's work.ts).
  if (prepared.watch !== undefined) prepared.watch(req, res, decision);
  let goesOn: boolean | undefined;
  try {
    goesOn = answerNode(prepared, answer, req, res, next, decision);
  } catch (error) {
    next(error);
    return;
  }
  if (goesOn === true) next();
}

/** ExpressAnswer's steps answer true when the request goes on, for respond to call next() outside its try. */
type ExpressAnswer = NodeAnswer<Request, Response, NextFunction, boolean>;

/** expressAnswer is Express's part of core's answerNode: Node's response itself, the decision on `req`. */
function expressAnswer(custom: Handler | undefined): ExpressAnswer {
  return {
    answered: (res) => res.headersSent,
    holder: slotted,
    first: replaceNodeHeader,
    later: setNodeHeader,
    pass: () => true,
    send: (_req, res, body) => {
      sendLimited(res, body);
      return false;
    },
    handle:
      custom === undefined
        ? undefined
        : (req, res, next, decision, status) => {
            const done = presetStatus(custom, req, res, decision, status);
            if (done instanceof Promise) done.catch(next);
            return false;
          },
  };
}

/**
 * presetStatus runs a custom handler with the status already set (429, 503 for a 'closed' failure), so
 * one that only sends a body (`res.send('Too many requests')`) never answers a denial with Express's
 * 200. A handler that throws or rejects has its preset taken back before the error goes on: Express's
 * final handler answers an error without a status of its own with the response's 4xx/5xx status, which
 * would dress a broken handler up as a rate limit instead of a 500.
 */
function presetStatus(custom: Handler, req: Request, res: Response, decision: Decision, status: number): unknown {
  const before = res.statusCode;
  const takeBack = (error: unknown): never => {
    if (!res.headersSent) res.statusCode = before;
    throw error;
  };
  res.statusCode = status;
  let done: unknown;
  try {
    done = custom(req, res, decision);
  } catch (error) {
    return takeBack(error);
  }
  return done instanceof Promise ? done.catch(takeBack) : done;
}

/**
 * clientIp is `req.ip` as Express resolves it. proxy-addr walks the forwarding headers only past peers
 * the app's `trust proxy fn` trusts, starting with the socket's peer; when that one is not trusted
 * (`trust proxy` off, the default, or a list it is not on) the answer is the peer's own address, read
 * here without the walk. A request whose `ip` was redefined on it, or an app without a trust
 * function, is asked `req.ip` itself.
 */
function clientIp(req: Request): string | undefined {
  const peer = req.socket.remoteAddress;
  const trust: unknown = req.app.get('trust proxy fn');
  if (peer === undefined || typeof trust !== 'function' || Object.hasOwn(req, 'ip') || trust(peer, 0)) return req.ip;
  return peer;
}
