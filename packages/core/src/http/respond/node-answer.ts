/**
 * answerNode is what every Node adapter (Express, Koa, Fastify) does once a request has its Decision, so
 * the sequence is written once: when someone else already answered the response, nothing; otherwise
 * the decision is left on the request, the rate-limit headers are written (the first ratekeeper limiter
 * on a request replaces its fields, a later one adds its items), and the request is passed on, or,
 * when the decision blocks, answered by the user's handler with the denial's status preset (429, 503
 * for a 'closed' store failure) or by the default body (LimitedBodies). It returns what the framework's
 * step returned, or undefined when the response was already answered. A throw from a header the response
 * refuses or from the handler propagates, for the adapter to hand to its framework's error path.
 *
 * NodeAnswer holds the steps where the frameworks truly differ, built once per middleware (Fastify:
 * per route limit), never per request:
 * - `answered`: Express and Koa ask Node's `headersSent`; Fastify also its `reply.sent`.
 * - `holder`: where the decision is left (Express `req`, Koa `ctx.state`, Fastify `request`).
 * - `first` / `later`, the header setters: Express and Koa write straight on Node's response (Koa's
 *   `ctx.set` would add a delegate hop per field); Fastify on its reply, which keeps one value per
 *   field, so a later limiter joins its List items to the earlier ones.
 * - `pass`: Express answers true and calls `next()` itself, outside the try that sends this function's
 *   throws to `next(err)` (an error thrown downstream must not reach `next` twice); Koa returns
 *   `next()`'s promise; Fastify calls `done()`.
 * - `send`, the default answer: Express on Node's response (`sendLimited`, the text); Koa and Fastify
 *   through their own reply so that their hooks run (Koa the text, Fastify the bytes).
 * - `handle`, the user's handler: each presets the status in its own terms and its errors differ:
 *   Express takes its preset back before the error goes on (its final handler would answer a broken
 *   handler with the preset 429), Fastify resets it to 500 and follows its route-handler contract for
 *   what the handler returns, Koa returns the handler's promise to its own error path.
 * Watching an admitted request's work (`prepared.watch`) is not here: it comes first, before the
 * answered check, and Koa keeps the Work it returns to end it once `next()` settled.
 *
 * Cost: no closure, promise or allocation; an admitted request pays three small calls (answered,
 * holder, pass) over inline code, each one site per framework.
 */
import type { Decision } from '../../decision.js';
import type { PreparedRateLimit } from '../prepare.js';
import type { HeaderSetter } from './headers.js';
import type { LimitedBody } from './limited-bodies.js';

/**
 * NodeAnswer is one Node framework's part of answerNode: `Req` what its middleware is given, `Res` where
 * the headers go, `Next` how a request goes on, `R` what each step returns.
 */
export interface NodeAnswer<Req, Res, Next, R> {
  /** answered tells whether someone else already answered on `res`: nothing more is written. */
  answered(res: Res): boolean;
  /** holder is the object the decision is left on as `rateLimit` (with several limiters, the last one's). */
  holder(req: Req): { rateLimit?: Decision | undefined };
  /** first writes a field for the first ratekeeper limiter on a request, which nothing wrote before. */
  readonly first: HeaderSetter<Res>;
  /** later writes a field for a later limiter on the same request. */
  readonly later: HeaderSetter<Res>;
  /** pass lets an admitted (or shadow) request go on. */
  pass(req: Req, res: Res, next: Next): R;
  /** send answers a blocked request with the default limited body. */
  send(req: Req, res: Res, body: LimitedBody): R;
  /** handle answers a blocked request with the user's handler, `status` preset; undefined when none is given. */
  readonly handle: ((req: Req, res: Res, next: Next, decision: Decision, status: number) => R) | undefined;
}

/** answerNode writes the headers for `decision`, then passes the request on or answers it (see above). */
export function answerNode<Req, Res, Next, R>(
  prepared: PreparedRateLimit<Req>,
  node: NodeAnswer<Req, Res, Next, R>,
  req: Req,
  res: Res,
  next: Next,
  decision: Decision,
): R | undefined {
  if (node.answered(res)) return undefined;
  const holder = node.holder(req);
  const first = holder.rateLimit === undefined;
  holder.rateLimit = decision;
  prepared.writeHeaders(res, first ? node.first : node.later, decision);
  if (!prepared.blocks(decision)) return node.pass(req, res, next);
  const body = prepared.body(decision);
  return node.handle === undefined ? node.send(req, res, body) : node.handle(req, res, next, decision, body.status);
}
