/**
 * Counting by outcome and settling the real cost, once the admitted request's work is over.
 *
 * - `countOutcome(outcome, req)`: return false and the request's charge is given back (refund);
 *   express-rate-limit's `skipFailedRequests` is `(o) => o.status < 400`, its
 *   `skipSuccessfulRequests` `(o) => o.status >= 400`. An error answered by the framework is an
 *   outcome (5xx), and so is a request whose client left (`aborted: true`).
 * - `settle(outcome, req)`: the request's real cost (bytes sent, tokens an LLM call used, rows
 *   returned), a whole number ≥ 0, possibly async. The `cost` charged up front is adjusted by the
 *   difference: a smaller real cost is refunded; a larger one is charged on top, or as much of it as
 *   the key has left (a denial records nothing, so the key is then drained to empty instead), never
 *   more. Charge the likely maximum up front when callers must not overrun.
 * - Leases: when the limiter has `release` (a ConcurrencyLimiter, or a composite with one), the
 *   request's lease is released at the same moment, before either hook runs, whatever the outcome.
 *
 * "Over" is the end of the work the request was admitted for, not the client's disconnect (DESIGN.md:
 * a limit covers the work it admits). A client that disconnects does not stop its handler, so
 * releasing its lease or judging its outcome at the disconnect would let anyone beat a concurrency
 * limit, or have a failed login given back, by disconnecting. When the client left first, the
 * outcome is what the handler answered, reported when it answered (`aborted: true`, its status, which
 * the client never received): an aborted failed login counts as the failure it is, an aborted success
 * as a success, under either recipe above. A handler that never answers is reported as CLIENT_CLOSED
 * (status 499, nginx's "client closed request") after `abandonedMs` (work.ts, which also says what
 * "over" is on Node). A client that left while the body was being sent reports the status sent.
 *
 * Node adapters hand the raw response to `watch` (work.ts). Adapters over Web Responses claim the
 * charge and call its Settle themselves (@ratekeeper/fetch: the body read to its end or cancelled, or
 * the Response handed over after the client left); a Settle acts on its first call only. A denied
 * request was charged nothing and is not watched. A hook that throws or rejects after the response,
 * or a release that fails, cannot reach any error path: it becomes a process warning (warning.ts; on a
 * runtime without `process`, a console warning).
 * Nothing here runs, or allocates, unless one of the two options is given or a limiter releases.
 */
import type { Decision } from '../../decision.js';
import type { RateLimiter } from '../../limiter/limiter.js';
import { describeValue } from '../../validate.js';
import { isThenable } from '../decide/thenable.js';
import { emitWarning } from './warning.js';

/** Finished is how a response ended, as the hooks see it. */
export interface Finished {
  /**
   * The status of the answer: the one sent, or, when the client had left before, the one the handler
   * answered with (nobody received it); 499 when the handler never answered (CLIENT_CLOSED).
   */
  readonly status: number;
  /** True when the client left (or the connection broke) before the response finished. */
  readonly aborted: boolean;
  /** The answer's Content-Length header as a number, undefined when absent (streamed, or no answer). */
  readonly contentLength: number | undefined;
}

/**
 * CLIENT_CLOSED is the outcome of a request whose client left and whose handler never answered within
 * `abandonedMs`: status 499 (nginx's "client closed request"), counted by a `status >= 400` recipe.
 */
export const CLIENT_CLOSED: Finished = Object.freeze({ status: 499, aborted: true, contentLength: undefined });

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

/** Settle applies a finished response's outcome to the charge it was claimed for; it acts on its first call only. */
export type Settle = (outcome: Finished) => void;

/**
 * Claim takes the charge decide recorded for an admitted request and returns its Settle, for the
 * adapter to call once the response is over; undefined when there is nothing to settle (the request
 * was denied, skipped, or already claimed). Adapters without a Node response (fetch, Hono) use it.
 */
export type Claim<Req> = (req: Req, decision: Decision) => Settle | undefined;

/**
 * claimer builds the prepared options' claim over the charges decide recorded, or undefined when no hook is given
 * and no limiter releases (`releases`).
 */
export function claimer<Req>(owner: string, hooks: AfterHooks<Req>, charges: WeakMap<object, Charge>, releases: boolean): Claim<Req> | undefined {
  const { countOutcome, settle } = hooks;
  if (countOutcome === undefined && settle === undefined && !releases) return undefined;
  const warn = (error: unknown) => emitWarning(`${owner}: countOutcome or settle failed after the response: ${String(error)}`, 'RATEKEEPER_SETTLE_FAILED');
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

/** after releases the charge's lease (when its limiter has one), then applies the hooks' verdict. */
async function after<Req>(owner: string, charge: Charge, outcome: Finished, req: Req, hooks: AfterHooks<Req>): Promise<void> {
  const release = charge.limiter.release;
  if (release !== undefined) {
    const released = release.call(charge.limiter, charge.key, charge.cost);
    if (isThenable(released)) await released;
  }
  return adjust(owner, charge, outcome, req, hooks);
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
