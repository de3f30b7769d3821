/**
 * Counting by outcome and settling the real cost, after the response.
 *
 * - `countOutcome(outcome, req)`: return false and the request's charge is given back (refund) once
 *   its response is over; express-rate-limit's `skipFailedRequests` is `(o) => o.status < 400`, its
 *   `skipSuccessfulRequests` `(o) => o.status >= 400`. A client that went away before the response
 *   finished is an outcome too (`aborted: true`), and so is an error answered by the framework (5xx).
 * - `settle(outcome, req)`: the request's real cost (bytes sent, tokens an LLM call used, rows
 *   returned), a whole number ≥ 0, possibly async. The `cost` charged up front is adjusted by the
 *   difference: a smaller real cost is refunded; a larger one is charged on top, or as much of it as
 *   the key has left (a denial records nothing, so the key is then drained to empty instead), never
 *   more. Charge the likely maximum up front when callers must not overrun.
 *
 * - Leases: when the limiter has `release` (a ConcurrencyLimiter, or a composite with one), the
 *   request's lease is released when its response is over, before either hook runs, whatever the
 *   outcome: completed, failed (5xx), or aborted by the client.
 *
 * All of it runs once per admitted request, when its response is over. On Node that is the response's
 * 'close' event (watch): Node emits it exactly once, after 'finish' for a completed response and
 * alone for an aborted one, so listening to it alone can never settle twice; a response already
 * closed when it is handed over (a client gone while a remote store decided) is settled at once.
 * Adapters over Web Responses claim the charge and call its Settle themselves (@ratekeeper/fetch's
 * onFinished: the body read to its end, or cancelled); a Settle acts on its first call only. A denied
 * request was charged nothing and is not watched. A hook that throws or rejects after the response,
 * or a release that fails, cannot reach any error path: it becomes a process warning.
 * Nothing here runs, or allocates, unless one of the two options is given or a limiter releases.
 */
import type { Decision } from '../decision.js';
import type { RateLimiter } from '../limiter.js';
import { describeValue } from '../validate.js';
import { isThenable } from './decide.js';

/** Finished is how a response ended, as the hooks see it. */
export interface Finished {
  /** The status sent (Node's statusCode; 200 when the response never got as far as a status). */
  readonly status: number;
  /** True when the connection closed before the response finished (client gone, or a broken stream). */
  readonly aborted: boolean;
  /** The response's Content-Length header as a number, undefined when absent (streamed). */
  readonly contentLength: number | undefined;
}

/** NodeResponse is the little of Node's ServerResponse the watcher reads. */
export interface NodeResponse {
  once(event: 'close', listener: () => void): unknown;
  /** True once the response has emitted 'close' (Node ≥ 18). */
  readonly closed?: boolean;
  readonly statusCode: number;
  readonly writableFinished: boolean;
  getHeader(name: string): unknown;
}

/** Charge is what decide charged a request: needed to give it back or adjust it. */
export interface Charge {
  readonly limiter: RateLimiter;
  readonly key: string;
  readonly cost: number;
}

export interface AfterHooks<Req> {
  readonly countOutcome: ((outcome: Finished, req: Req) => boolean | PromiseLike<boolean>) | undefined;
  readonly settle: ((outcome: Finished, req: Req) => number | PromiseLike<number>) | undefined;
}

/** Watch: the adapter hands over an admitted request's raw response; the charge is settled when it closes. */
export type Watch<Req> = (req: Req, res: NodeResponse, decision: Decision) => void;

/** Settle applies a finished response's outcome to the charge it was claimed for; it acts on its first call only. */
export type Settle = (outcome: Finished) => void;

/**
 * Claim takes the charge decide recorded for an admitted request and returns its Settle, for the
 * adapter to call once the response is over; undefined when there is nothing to settle (the request
 * was denied, skipped, or already claimed). Adapters without a Node response (fetch, Hono) use it.
 */
export type Claim<Req> = (req: Req, decision: Decision) => Settle | undefined;

/**
 * claimer builds the plan's claim over the charges decide recorded, or undefined when no hook is given
 * and no limiter releases (`releases`).
 */
export function claimer<Req>(owner: string, hooks: AfterHooks<Req>, charges: WeakMap<object, Charge>, releases: boolean): Claim<Req> | undefined {
  const { countOutcome, settle } = hooks;
  if (countOutcome === undefined && settle === undefined && !releases) return undefined;
  const warn = (error: unknown) =>
    process.emitWarning(`${owner}: countOutcome or settle failed after the response: ${String(error)}`, { type: 'RatekeeperWarning', code: 'RATEKEEPER_SETTLE_FAILED' });
  return function claim(req, decision) {
    const charge = charges.get(req as object);
    if (charge === undefined || !decision.allowed) return undefined;
    charges.delete(req as object);
    let settled = false;
    return function settleCharge(outcome) {
      if (settled) return;
      settled = true;
      after(owner, charge, outcome, req, hooks).then(undefined, warn);
    };
  };
}

/** watcher builds the Node adapters' watch over `claim`: the charge is settled on the response's one 'close'. */
export function watcher<Req>(claim: Claim<Req> | undefined): Watch<Req> | undefined {
  if (claim === undefined) return undefined;
  return function watch(req, res, decision) {
    const settle = claim(req, decision);
    if (settle === undefined) return;
    if (res.closed === true) settle(finished(res));
    else res.once('close', () => settle(finished(res)));
  };
}

/** after releases the charge's lease (when its limiter has one), then applies the hooks' verdict. */
async function after<Req>(owner: string, charge: Charge, outcome: Finished, req: Req, hooks: AfterHooks<Req>): Promise<void> {
  const release = charge.limiter.release;
  if (release !== undefined) {
    const released = release.call(charge.limiter, charge.key, charge.cost);
    if (isThenable(released)) await released;
  }
  return adjust(owner, charge, outcome, req, hooks);
}

/** finished reads how `res` ended. */
export function finished(res: NodeResponse): Finished {
  const length = Number(res.getHeader('content-length'));
  return { status: res.statusCode, aborted: !res.writableFinished, contentLength: Number.isFinite(length) ? length : undefined };
}

/** adjust applies the hooks' verdict on one finished request to its charge. */
export async function adjust<Req>(owner: string, charge: Charge, outcome: Finished, req: Req, hooks: AfterHooks<Req>): Promise<void> {
  const { limiter, key, cost } = charge;
  if (hooks.countOutcome !== undefined) {
    const counts = hooks.countOutcome(outcome, req);
    if ((isThenable(counts) ? await counts : counts) === false) return void (await limiter.refund!(key, cost));
  }
  if (hooks.settle === undefined) return;
  const answered = hooks.settle(outcome, req);
  const real = isThenable(answered) ? await answered : answered;
  if (typeof real !== 'number' || !Number.isSafeInteger(real) || real < 0) {
    throw new TypeError(`${owner}: settle must return a whole number ≥ 0, got ${describeValue(real)}`);
  }
  if (real < cost) await limiter.refund!(key, cost - real);
  else if (real > cost) {
    const extra = await limiter.consume(key, real - cost);
    if (!extra.allowed && Number.isFinite(extra.remaining) && extra.remaining > 0) await limiter.consume(key, extra.remaining);
  }
}
