/**
 * rateLimit is ratekeeper's Koa middleware (Koa 3, and Koa 2): it keys the request, asks the limiter
 * once, writes the rate-limit headers, and then either awaits `next()` or answers the request itself
 * (429 `application/problem+json` by default, 503 when a store failing 'closed' decided).
 *
 * Everything but that translation lives in `@ratekeeper/core` (prepareRateLimit, then answerNode with
 * this framework's steps): option validation,
 * the default key (`ctx.ip`, so Koa's own `app.proxy` setting decides whether X-Forwarded-For counts;
 * IPv6 grouped by prefix), header values and the problem body. Options are validated when rateLimit is
 * called, never per request.
 *
 * Every error on the decision path rejects the middleware's promise (it is an async function, so even
 * a synchronous throw does): errors thrown by `key`, `skip`, `cost`, `onDecision` or `handler`, a
 * request without a usable IP (missingIp: 'reject'), a limiter that failed or answered something that
 * is not a Decision (core's RateLimiterError), and a header the response refuses. Koa's error path
 * (ctx.onerror, app 'error' event) answers them, with a generic 500 body. Nothing is written once
 * `ctx.headerSent`: an answer someone else already sent ends the chain here.
 *
 * The trust-proxy check (core's proxy-check.ts) looks at requests until it has warned, naming Koa's
 * `app.proxy`; proxyWarning: false turns it off. It never changes a decision.
 *
 * `key`, `skip`, `cost` and `plan` may be async (their rejections reject the middleware's promise
 * too). A request whose socket closed while an async hook was being awaited is not counted and gets
 * nothing more (core's `gone`; Koa finds the response unwritable and stays quiet). The Decision is left
 * on `ctx.state.rateLimit` (typed by the augmentation below) for later middleware and logs; with
 * several limiters on one request, the last one's. With `countOutcome`, `settle` or a limiter holding
 * leases (ConcurrencyLimiter), every admitted request's response is handed to core's watch as soon as
 * the decision arrives (before a header can fail or the response be found sent), and the middleware
 * tells it when `next()` settled: the lease is released, and the outcome reported, when the response
 * finishes or fails, or, when the client left first, when the rest of the chain is done (Koa runs it
 * for nobody and writes nothing), with the status Koa would have answered (an error's own 4xx/5xx
 * status, else 500). Without those options nothing of this runs: `return next()` as before.
 */
import type { Context, Middleware, Next } from 'koa';
import { type Decision, type ProxySetting, type RateLimitOptions } from '@ratekeeper/core';
import { type NodeAnswer, answerNode, bySocket, describeValue, prepareRateLimit, replaceNodeHeader, setNodeHeader } from '@ratekeeper/core/adapter';

declare module 'koa' {
  interface DefaultState {
    /** The decision of the last ratekeeper limiter this request went through (policy included). */
    rateLimit?: Decision;
  }
}

const OWNER = 'rateLimit';
const PROXY: ProxySetting = {
  framework: 'Koa',
  trust: "turn on Koa's `app.proxy` (app.proxy = true) and set app.maxIpsCount to the number of proxies in front",
  restrict:
    "turn Koa's `app.proxy` off unless every request reaches the server through your proxy (Koa cannot trust only some addresses), and set app.maxIpsCount to the number of proxies",
};

/**
 * KoaRateLimitOptions are core's adapter options plus the limited-response handler: a `limiter`, one
 * algorithm's shorthand options (each algorithm takes only its own), or `plans`, with the rest.
 */
export type KoaRateLimitOptions = RateLimitOptions<Context> & {
  /**
   * Answers a request the limiter denied, after the rate-limit headers (and Retry-After) are written.
   * It runs with `ctx.status` already set (429, or 503 for a 'closed' store failure), so
   * `ctx.body = 'Too many requests'` answers 429; setting `ctx.status` still picks another.
   * Default: that status with an RFC 9457 problem+json body.
   */
  readonly handler?: (ctx: Context, decision: Decision) => void | Promise<void>;
};

/** rateLimit validates `options` and returns the middleware, for `app.use` or a router. */
export function rateLimit(options?: KoaRateLimitOptions): Middleware {
  const prepared = prepareRateLimit<Context>(OWNER, options, ['handler'], { ...bySocket((ctx: Context) => ctx.req.socket), framework: 'koa' });
  const handler = options?.handler;
  if (handler !== undefined && typeof handler !== 'function') {
    throw new TypeError(`${OWNER}: handler must be a function, got ${describeValue(handler)}`);
  }
  const answer = koaAnswer(handler);
  const proxy = prepared.watchProxy(PROXY);

  return async function rateLimit(ctx: Context, next: Next): Promise<void> {
    const ip = ctx.ip;
    if (proxy.pending) proxy.observe(ip, ctx.req.socket.remoteAddress, ctx.req.headers);
    const decided = prepared.decide(ctx, ip);
    if (decided === undefined) return next();
    const decision = decided instanceof Promise ? await decided : decided;
    if (decision === undefined) return next();
    if (decision === null) return;
    // First, whatever happens next: an admitted request's work is followed to its end (core's work.ts).
    const work = prepared.watch === undefined ? undefined : prepared.watch(ctx, ctx.res, decision);
    if (work === undefined) return answerNode(prepared, answer, ctx, ctx.res, next, decision);
    // Koa lets the handler run after its client left and writes nothing then: next() settling is the end.
    try {
      await answerNode(prepared, answer, ctx, ctx.res, next, decision);
    } catch (error) {
      work.end(statusOf(error));
      throw error;
    }
    work.end();
  };
}

/**
 * koaAnswer is Koa's part of core's answerNode: the headers straight on the Node response (its
 * headersSent is ctx.headerSent; ctx.set would add a delegate hop per field), the decision on
 * `ctx.state`, `next()` awaited by the middleware, and a denial answered through ctx so Koa's own
 * response handling runs.
 */
function koaAnswer(handler: KoaRateLimitOptions['handler']): NodeAnswer<Context, Context['res'], Next, Promise<void> | void> {
  return {
    answered: (res) => res.headersSent,
    holder: (ctx) => ctx.state,
    first: replaceNodeHeader,
    later: setNodeHeader,
    pass: (_ctx, _res, next) => next(),
    send: (ctx, _res, body) => {
      ctx.status = body.status;
      ctx.body = body.text; // a string goes out with the head in one write (a Buffer is a second chunk)
      ctx.type = body.contentType; // after the body: a string body would otherwise set text/plain
    },
    handle:
      handler === undefined
        ? undefined
        : (ctx, _res, _next, decision, status) => {
            // Preset, so a handler that only sets ctx.body answers 429 (503), not Koa's 200; it may set another.
            ctx.status = status;
            return handler(ctx, decision);
          },
  };
}

/** statusOf is the status Koa's error handler answers `error` with: its own 4xx/5xx status, else 500. */
function statusOf(error: unknown): number {
  const e = error as { status?: unknown; statusCode?: unknown } | null | undefined;
  const status = e?.status ?? e?.statusCode;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500;
}
