/**
 * rateLimit is ratekeeper for Web-standard servers (Bun.serve, Deno.serve, Cloudflare Workers, Next.js
 * route handlers, anything that maps a `Request` to a `Response`). It returns a check:
 *
 *   const limited = await limit(request, { ip });   // undefined: go on; a Response: return it
 *
 * which keys the request, asks the limiter once and, when the request is blocked, builds the answer
 * (429 `application/problem+json` by default, 503 when a store failing 'closed' decided) with the
 * rate-limit headers on it. For an admitted request the decision is remembered against the request,
 * so `limit.headers(request, response)` puts the same headers on the application's own Response;
 * `limit.wrap(handler, ip)` does both around a whole handler.
 *
 * The client address is never guessed: no runtime has one way to get it (Bun `server.requestIP`,
 * Deno `info.remoteAddr`, Workers `CF-Connecting-IP`, Next.js only a proxy header), so the caller
 * passes it with every check. A missing or unusable address is never a shared bucket: core's
 * `missingIp` rule rejects the check with a MissingIpError (default) or lets the request through
 * uncounted ('skip').
 *
 * There is no framework error path here: errors thrown by `key`, `skip`, `cost`, `onDecision` or
 * `handler`, a missing address and a failed limiter (a RateLimiterError without the store's text)
 * reject the check's promise, for the runtime's own error handler (a 500) to answer.
 *
 * A client that went away while an async `key`, `skip`, `cost` or `plan` was being awaited (its
 * Request's `signal` aborted, which Node's fetch servers, Bun and Deno do when the connection closes)
 * is not counted: the check answers an empty 499 (nginx's "client closed request", for the logs;
 * nobody receives it) and the handler does not run.
 *
 * In delay mode (`mode: 'delay'`, core's http/delay.ts) the check's promise settles when the held
 * request may go. The Request's `signal` stands in for the client's connection (signal-socket.ts):
 * when it aborts during the wait, the booking is cancelled at once and the check answers the empty
 * 499. On a runtime that never aborts it (workerd without its request-signal flag), the wait runs to
 * its bound and the booking stays.
 *
 * `countOutcome` and `settle` (core's outcome.ts) act once the response is over: `headers` (and so
 * `wrap`) or `finish` hand the application's Response to onFinished, which settles the charge when
 * the runtime has read its body to the end or cancelled it. A handler that throws inside `wrap` is
 * settled as a 500. An admitted request whose Response never reaches `headers`/`finish` stays charged
 * as it was decided. A limiter holding leases (ConcurrencyLimiter, alone or in a composite) is settled
 * the same way, with or without the hooks: its lease is released at that moment. Without either
 * option and without such a limiter nothing is wrapped.
 */
import { type Decision, LimitedBodies, type RateLimitOptions, type Settle, describeValue, prepareRateLimit } from '@ratekeeper/core';
import { onFinished } from './on-finished.js';
import { withHeaders } from './response.js';
import { signalSocket } from './signal-socket.js';

const OWNER = 'rateLimit';

/** FetchRateLimitOptions are core's adapter options plus the limited-response handler. */
export interface FetchRateLimitOptions<Req extends object = Request> extends RateLimitOptions<Req> {
  /**
   * Builds the Response for a request the limiter blocked; the rate-limit headers and Retry-After are
   * then added to it. Default: 429 (503 for a 'closed' store failure) with a problem+json body.
   */
  readonly handler?: (request: Req, decision: Decision) => Response | Promise<Response>;
}

/** Where the check finds the client address: passed explicitly on every call. */
export interface ClientAddress {
  /** The client's IP as the runtime knows it; undefined or null when it has none. */
  readonly ip?: string | null | undefined;
}

/** FetchRateLimit is the check, plus what the application's own response needs. */
export interface FetchRateLimit<Req extends object = Request> {
  /** Decides the request: undefined to go on, or the Response to return instead (429 / 503). */
  (request: Req, client?: ClientAddress): Promise<Response | undefined>;
  /** The decision the check took for `request`; undefined when it was skipped or not checked. */
  decision(request: Req): Decision | undefined;
  /** Puts the request's rate-limit headers on `response`: the same Response, or a copy when its headers are immutable. */
  headers(request: Req, response: Response): Response;
  /**
   * Hands over the application's final Response for `countOutcome` / `settle` and a lease's release:
   * returns it, or a copy whose end (body read or cancelled) settles the request's charge once. The
   * same Response when neither option is given and the limiter holds no leases, or the request was not
   * counted. `headers` already does this.
   */
  finish(request: Req, response: Response): Response;
  /** Writes the rate-limit headers of `decision` through `set` (for frameworks with their own header API). */
  writeHeaders(decision: Decision, set: (name: string, value: string, append: boolean) => void): void;
  /** Wraps a whole handler: check, then the handler, then the headers; `ip` reads the address from the handler's arguments. */
  wrap<A extends unknown[]>(
    handler: (request: Req, ...rest: A) => Response | Promise<Response>,
    ip: (request: Req, ...rest: A) => string | null | undefined,
  ): (request: Req, ...rest: A) => Promise<Response>;
}

type Setter = (name: string, value: string, append: boolean) => void;
/** Held is an admitted request's claimed settle until its Response is handed over, and how to stop watching its signal. */
type Held = { readonly settle: Settle; readonly forget: () => void };
const through = (set: Setter, name: string, value: string, append: boolean): void => set(name, value, append);
const onHeaders = (headers: Headers, name: string, value: string, append: boolean): void => {
  if (append) headers.append(name, value);
  else headers.set(name, value);
};

/**
 * rateLimit validates `options` at once and returns the check. `raw` is for adapters built on this one
 * whose request object is not the Request (Hono's Context): it finds the Request, whose `signal` tells
 * a client gone during an async lookup or a delay-mode wait. Default: the request itself.
 */
export function rateLimit<Req extends object = Request>(options?: FetchRateLimitOptions<Req>, raw?: (request: Req) => Request): FetchRateLimit<Req> {
  if (raw !== undefined && typeof raw !== 'function') throw new TypeError(`${OWNER}: raw must be a function, got ${describeValue(raw)}`);
  const requestOf = raw ?? ((request: Req) => request as unknown as Request);
  const gone = (request: Req): boolean => requestOf(request).signal?.aborted === true;
  const socket = (request: Req) => signalSocket(requestOf(request).signal);
  const plan = prepareRateLimit<Req>(OWNER, options, ['handler'], { gone, socket });
  const claim = plan.claim;
  const bodies = new LimitedBodies(plan.limiter.policies);
  const handler = options?.handler;
  if (handler !== undefined && typeof handler !== 'function') {
    throw new TypeError(`${OWNER}: handler must be a function, got ${describeValue(handler)}`);
  }
  // Admitted (and shadow-mode) decisions, until the application's response is built.
  const decided = new WeakMap<Req, Decision>();
  // Admitted requests' settles, claimed at admission (only when the plan settles anything), until the
  // application's Response is handed over: a client gone before that settles at once, as aborted.
  const pending = new WeakMap<Req, Held>();
  /** keep records a request's held settle beside one already held (the same check twice on one request: both are settled). */
  const keep = (request: Req, held: Held): void => {
    const prior = pending.get(request);
    pending.set(request, prior === undefined ? held : { settle: (f) => (prior.settle(f), held.settle(f)), forget: () => (prior.forget(), held.forget()) });
  };

  /** hold claims an admitted request's settle and settles it, aborted, if its client goes away first. */
  const hold = (request: Req, decision: Decision): void => {
    const settle = claim!(request, decision);
    if (settle === undefined) return;
    const signal = requestOf(request).signal;
    if (signal === undefined || signal === null) return keep(request, { settle, forget: () => {} });
    // Node's 'close' without 'finish': no status was sent, the status reads 200 as Node's does. Every
    // settle held for the request hears the same abort (a Settle acts on its first call only).
    const gone = () => (pending.delete(request), settle({ status: 200, aborted: true, contentLength: undefined }));
    // Gone while the store decided: an aborted signal fires no more 'abort', so settle now.
    if (signal.aborted) return gone();
    signal.addEventListener('abort', gone, { once: true });
    keep(request, { settle, forget: () => signal.removeEventListener('abort', gone) });
  };

  const answer = async (request: Req, decision: Decision): Promise<Response> => {
    if (handler !== undefined) return withHeaders(await handler(request, decision), (h) => plan.writeHeaders(h, onHeaders, decision));
    const body = bodies.get(decision);
    const headers = new Headers({ 'Content-Type': body.contentType });
    plan.writeHeaders(headers, onHeaders, decision);
    return new Response(body.bytes, { status: body.status, headers });
  };

  const check = async function rateLimit(request: Req, client?: ClientAddress): Promise<Response | undefined> {
    // A bare address string where { ip } belongs would read as "no address": say so instead.
    if (typeof client !== 'object' && client !== undefined) throw new TypeError(`${OWNER}: the client must be { ip }, got ${describeValue(client)}`);
    const outcome = plan.decide(request, client?.ip ?? undefined);
    if (outcome === undefined) return undefined;
    const decision = outcome instanceof Promise ? await outcome : outcome;
    // An async skip resolves to undefined (pass on, uncounted); null: the client is gone, uncounted.
    if (decision === undefined) return undefined;
    if (decision === null) return new Response(null, { status: 499 });
    if (plan.blocks(decision)) return answer(request, decision);
    decided.set(request, decision);
    if (claim !== undefined) hold(request, decision);
    return undefined;
  };

  const finish = (request: Req, response: Response): Response => {
    const held = pending.get(request);
    if (held === undefined) return response;
    pending.delete(request);
    held.forget();
    return onFinished(response, held.settle, requestOf(request));
  };

  const headers = (request: Req, response: Response): Response => {
    const decision = decided.get(request);
    if (decision === undefined) return response;
    const written = withHeaders(response, (h) => plan.writeHeaders(h, onHeaders, decision));
    return claim === undefined ? written : finish(request, written);
  };

  return Object.assign(check, {
    decision: (request: Req) => decided.get(request),
    headers,
    finish,
    writeHeaders: (decision: Decision, set: Setter) => plan.writeHeaders(set, through, decision),
    wrap<A extends unknown[]>(inner: (request: Req, ...rest: A) => Response | Promise<Response>, ip: (request: Req, ...rest: A) => string | null | undefined) {
      if (typeof inner !== 'function') throw new TypeError(`${OWNER}: wrap(handler, ip): handler must be a function, got ${describeValue(inner)}`);
      if (typeof ip !== 'function') throw new TypeError(`${OWNER}: wrap(handler, ip): ip must be a function, got ${describeValue(ip)}`);
      return async function rateLimited(request: Req, ...rest: A): Promise<Response> {
        const limited = await check(request, { ip: ip(request, ...rest) });
        if (limited !== undefined) return limited;
        if (claim === undefined) return headers(request, await inner(request, ...rest));
        let response: Response;
        try {
          response = await inner(request, ...rest);
        } catch (error) {
          finish(request, new Response(null, { status: 500 })); // the runtime answers a throw with a 500
          throw error;
        }
        return headers(request, response);
      };
    },
  });
}
