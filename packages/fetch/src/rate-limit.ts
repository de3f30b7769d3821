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
 * `limit.run(request, { ip }, handler)` does both around a handler, and `limit.wrap(handler, ip)`
 * around a whole server handler.
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
 * In delay mode (`mode: 'delay'`, core's http/decide/delay.ts) the check's promise settles when the held
 * request may go. The Request's `signal` stands in for the client's connection (signal-socket.ts):
 * when it aborts during the wait, the booking is cancelled at once and the check answers the empty
 * 499. On a runtime that never aborts it (workerd without its request-signal flag), the wait runs to
 * its bound and the booking stays.
 *
 * `countOutcome` and `settle` (core's settle.ts) act once the request's work is over: `headers` (and
 * so `run` and `wrap`) or `finish` hand the application's Response over (held.ts), which settles the
 * charge when the runtime has read its body to the end or cancelled it, or at once when the client
 * had left (the Request's signal aborted): then the outcome is the handler's answer, aborted, and a
 * handler that never answers is settled as 499 `abandonedMs` after the abort. A handler that throws
 * inside `run` or `wrap` is settled as a 500. An admitted request whose Response never reaches
 * `headers`/`finish` stays charged as it was decided: with leases or those hooks, use `run` or `wrap`
 * rather than the bare check, or hand a Response over on every path. A limiter holding leases
 * (ConcurrencyLimiter, alone or in a composite) is settled the same way, with or without the hooks:
 * its lease is released at that moment, not when the client disconnects. Without either option and
 * without such a limiter nothing is held or wrapped.
 */
import { type Decision, type LimiterSource, type RateLimitBaseOptions } from '@ratekeeper/core';
import { describeValue, prepareRateLimit } from '@ratekeeper/core/adapter';
import { Held } from './held.js';
import { Remembered } from './remembered.js';
import { limitedStatus, withHeaders } from './response.js';
import { signalSocket } from './signal-socket.js';

const OWNER = 'rateLimit';

/**
 * FetchRateLimitOptions are core's adapter options plus the limited-response handler, without
 * `proxyWarning`: the client address is the one the application passes to each check, so there is no
 * framework proxy setting to compare it with, and the option is refused (refuseProxyWarning).
 */
export type FetchRateLimitOptions<Req extends object = Request> = Omit<RateLimitBaseOptions<Req>, 'proxyWarning'> &
  LimiterSource<Req> & {
    /**
     * Builds the Response for a request the limiter blocked; the rate-limit headers and Retry-After are
     * then added to it. A Response with status 200 (`new Response('Too many requests')`, whose status
     * nobody chose) is answered with the limited status instead: 429, or 503 for a 'closed' store
     * failure; any other status is kept. Default: that status with a problem+json body.
     */
    readonly handler?: (request: Req, decision: Decision) => Response | Promise<Response>;
  };

/** Where the check finds the client address: passed explicitly on every call. */
export interface ClientAddress {
  /** The client's IP as the runtime knows it; undefined or null when it has none. */
  readonly ip?: string | null | undefined;
}

/** FetchRateLimit is the check, plus what the application's own response needs. */
export interface FetchRateLimit<Req extends object = Request> {
  /** Decides the request: undefined to go on, or the Response to return instead (429 / 503). */
  (request: Req, client?: ClientAddress): Promise<Response | undefined>;
  /**
   * The check without its promise: the Response to return instead, undefined to go on, or a promise of
   * either when the limiter or a hook is asynchronous (a remote store). Synchronous with the memory
   * store, for handlers that answer in the same turn; it throws what the check rejects with.
   */
  now(request: Req, client?: ClientAddress): Response | Promise<Response | undefined> | undefined;
  /**
   * For an adapter that carries the decision itself (@ratekeeper/hono, in `c.var.rateLimit`): `now`,
   * except that a request admitted in this turn is answered with its Decision (a Response has no
   * `allowed`) instead of being remembered for `decision` and `headers`, which saves a store per request
   * on the request (remembered.ts). A promise resolves as `now`'s does, the decision remembered.
   */
  nowKept(request: Req, client?: ClientAddress): Decision | Response | Promise<Response | undefined> | undefined;
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
  /**
   * The check, then `handler(request)` when the request may go on, then the headers: resolves to the
   * Response to return (the 429, or the handler's with its headers). A handler that throws hands the
   * runtime's 500 over first, so no lease or charge outlives it, then the error goes on.
   */
  run(request: Req, client: ClientAddress | undefined, handler: (request: Req) => Response | Promise<Response>): Promise<Response>;
  /**
   * Wraps a whole handler: `run` with `ip(request, ...rest)` as the address; `ip` reads the address from
   * the handler's arguments (Bun's `server`, Deno's `info`, a Worker's `env`). The wrapped handler
   * returns the Response itself when the limiter and `handler` answered synchronously (the memory
   * store), else a promise of it; its errors always reject. Their types come from
   * `ip`'s annotations, else they are `any` (a runtime's own types are not known here), so a handler
   * that takes fewer arguments fits.
   */
  wrap<A extends unknown[] = RuntimeArgs>(
    handler: (request: Req, ...rest: RuntimeArgs) => Response | Promise<Response>,
    ip: (request: Req, ...rest: A) => string | null | undefined,
  ): (request: Req, ...rest: A) => Response | Promise<Response>;
}

type Setter = (name: string, value: string, append: boolean) => void;

/** RuntimeArgs: a runtime's arguments after the Request (Bun's server, Deno's info, a Worker's env and ctx), whose types are the runtime's. */
// biome-ignore lint/suspicious/noExplicitAny: the runtime's own types are not known here; the caller's annotations narrow them
export type RuntimeArgs = any[];
const through = (set: Setter, name: string, value: string, append: boolean): void => set(name, value, append);
const onHeaders = (headers: Headers, name: string, value: string, append: boolean): void => {
  if (append) headers.append(name, value);
  else headers.set(name, value);
};
/** onRecord writes a field into a plain header record (writeHeaders spells each name one way). */
const onRecord = (fields: Record<string, string>, name: string, value: string, append: boolean): void => {
  const prev = fields[name];
  fields[name] = append && prev !== undefined ? `${prev}, ${value}` : value;
};
type Handler<Req extends object> = NonNullable<FetchRateLimitOptions<Req>['handler']>;
const isThenable = (value: unknown): value is PromiseLike<Response> => typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/**
 * rateLimit validates `options` at once and returns the check. `raw` is for adapters built on this one
 * whose request object is not the Request (Hono's Context): it finds the Request, whose `signal` tells
 * a client gone during an async lookup or a delay-mode wait. Default: the request itself. `framework`
 * is for them too: whose handler an option error shows ('hono': `(c) => c.text(…)`; default 'fetch').
 */
export function rateLimit<Req extends object = Request>(
  options?: FetchRateLimitOptions<Req>,
  raw?: (request: Req) => Request,
  framework: 'fetch' | 'hono' = 'fetch',
): FetchRateLimit<Req> {
  if (raw !== undefined && typeof raw !== 'function') throw new TypeError(`${OWNER}: raw must be a function, got ${describeValue(raw)}`);
  if (framework !== 'fetch' && framework !== 'hono') throw new TypeError(`${OWNER}: framework must be 'fetch' or 'hono', got ${describeValue(framework)}`);
  const requestOf = raw ?? ((request: Req) => request as unknown as Request);
  const gone = (request: Req): boolean => requestOf(request).signal?.aborted === true;
  const socket = (request: Req) => signalSocket(requestOf(request).signal);
  refuseProxyWarning(options);
  const prepared = prepareRateLimit<Req>(OWNER, options, ['handler'], { gone, socket, framework });
  const claim = prepared.claim;
  const handler = options?.handler;
  if (handler !== undefined && typeof handler !== 'function') {
    throw new TypeError(`${OWNER}: handler must be a function, got ${describeValue(handler)}`);
  }
  // Admitted (and shadow-mode) decisions, until the application's response is built (remembered.ts).
  const decided = new Remembered<Req>();
  // Admitted requests' settles, claimed at admission (only when the prepared options settle anything), until the
  // application's Response is handed over (held.ts).
  const held = claim === undefined ? undefined : new Held(claim, requestOf, prepared.abandonedMs);

  // A default 429/503 carries its fields as a plain record: a runtime can write it without building a
  // Headers (@hono/node-server's Response does), and it is the same Response everywhere else.
  const answer = (request: Req, decision: Decision): Response | Promise<Response> => {
    const body = prepared.body(decision); // cached bytes (one set per plan with `plans`)
    if (handler !== undefined) return answerWith(handler, request, decision, body.status);
    const fields: Record<string, string> = { 'Content-Type': body.contentType };
    prepared.writeHeaders(fields, onRecord, decision);
    return new Response(body.bytes, { status: body.status, headers: fields });
  };
  /** writeOn writes a decision's fields on a Response's Headers (built once: withHeaders then takes no closure per response). */
  const writeOn = (h: Headers, decision: Decision): void => prepared.writeHeaders(h, onHeaders, decision);
  const answerWith = async (custom: Handler<Req>, request: Req, decision: Decision, status: number): Promise<Response> =>
    withHeaders(limitedStatus(await custom(request, decision), status), writeOn, decision);

  /**
   * admit finishes a decision: the Response to return instead (499, 429/503), or undefined to go on
   * (remembered for the headers); with `kept`, an admitted decision is answered instead of remembered
   * (its caller carries it: nowKept).
   */
  function admit(request: Req, decision: Decision | undefined | null): Response | Promise<Response> | undefined;
  function admit(request: Req, decision: Decision | undefined | null, kept: true): Decision | Response | Promise<Response> | undefined;
  function admit(request: Req, decision: Decision | undefined | null, kept = false): Decision | Response | Promise<Response> | undefined {
    // An async skip resolves to undefined (pass on, uncounted); null: the client is gone, uncounted.
    if (decision === undefined) return undefined;
    if (decision === null) return new Response(null, { status: 499 });
    if (prepared.blocks(decision)) return answer(request, decision);
    if (held !== undefined) held.hold(request, decision);
    if (kept) return decision;
    decided.set(request, decision);
    return undefined;
  }

  /**
   * decideNow is the check without its promise: synchronous when the limiter decided synchronously (the
   * memory store, no async hook), so that `wrap` answers the runtime in the same turn; it throws what
   * the check rejects with. `kept`: a request admitted in this turn is answered with its Decision
   * instead of being remembered (nowKept).
   */
  function decideNow(request: Req, client: ClientAddress | undefined): Response | Promise<Response | undefined> | undefined;
  function decideNow(request: Req, client: ClientAddress | undefined, kept: true): Decision | Response | Promise<Response | undefined> | undefined;
  function decideNow(request: Req, client: ClientAddress | undefined, kept?: true): Decision | Response | Promise<Response | undefined> | undefined {
    // A bare address string where { ip } belongs would read as "no address": say so instead.
    if (typeof client !== 'object' && client !== undefined) throw new TypeError(`${OWNER}: the client must be { ip }, got ${describeValue(client)}`);
    const decided = prepared.decide(request, client?.ip ?? undefined);
    if (decided === undefined) return undefined;
    if (decided instanceof Promise) return decided.then((decision) => admit(request, decision));
    return kept ? admit(request, decided, true) : admit(request, decided);
  }

  const check = async function rateLimit(request: Req, client?: ClientAddress): Promise<Response | undefined> {
    return decideNow(request, client);
  };

  const finish = (request: Req, response: Response): Response => (held === undefined ? response : held.hand(request, response));

  const headers = (request: Req, response: Response): Response => {
    const decision = decided.get(request);
    if (decision === undefined) return response;
    const written = withHeaders(response, writeOn, decision);
    return held === undefined ? written : held.hand(request, written);
  };

  /** guarded: the handler's Response with its headers; a throw hands the runtime's 500 over first, then goes on. */
  const guarded = async (request: Req, call: () => Response | Promise<Response>): Promise<Response> => {
    let response: Response;
    try {
      response = await call();
    } catch (error) {
      held?.hand(request, new Response(null, { status: 500 })); // the runtime answers a throw with a 500
      throw error;
    }
    return headers(request, response);
  };

  /** run: the check, then `inner`, then the headers (guarded only when something is held: no closure otherwise). */
  const run = async (request: Req, client: ClientAddress | undefined, inner: (request: Req) => Response | Promise<Response>): Promise<Response> => {
    if (typeof inner !== 'function') throw new TypeError(`${OWNER}: run(request, client, handler): handler must be a function, got ${describeValue(inner)}`);
    const limited = await check(request, client);
    if (limited !== undefined) return limited;
    if (held === undefined) return headers(request, await inner(request));
    return guarded(request, () => inner(request));
  };

  return Object.assign(check, {
    now: (request: Req, client?: ClientAddress) => decideNow(request, client),
    nowKept: (request: Req, client?: ClientAddress) => decideNow(request, client, true),
    decision: (request: Req) => decided.get(request),
    headers,
    finish,
    writeHeaders: (decision: Decision, set: Setter) => prepared.writeHeaders(set, through, decision),
    run,
    wrap<A extends unknown[]>(inner: (request: Req, ...rest: RuntimeArgs) => Response | Promise<Response>, ip: (request: Req, ...rest: A) => string | null | undefined) {
      if (typeof inner !== 'function') throw new TypeError(`${OWNER}: wrap(handler, ip): handler must be a function, got ${describeValue(inner)}`);
      if (typeof ip !== 'function') throw new TypeError(`${OWNER}: wrap(handler, ip): ip must be a function, got ${describeValue(ip)}`);
      /** after runs the handler of an admitted request and adds the headers; a throw rejects. */
      const after = (request: Req, rest: A): Response | Promise<Response> => {
        if (held !== undefined) return guarded(request, () => inner(request, ...rest));
        let response: Response | Promise<Response>;
        try {
          response = inner(request, ...rest);
        } catch (error) {
          return Promise.reject(error);
        }
        // Any thenable the handler returns is awaited, as `await` did: only a Response is answered in this turn.
        return isThenable(response) ? Promise.resolve(response).then((r) => headers(request, r)) : headers(request, response);
      };
      // The address handed to decideNow, which reads it at once: one object per wrap, not one per request.
      const client: { ip: string | null | undefined } = { ip: undefined };
      // Synchronous end to end when the limiter and the handler are: no promise for the runtime to await.
      return function rateLimited(request: Req, ...rest: A): Response | Promise<Response> {
        let limited: Response | Promise<Response | undefined> | undefined;
        try {
          client.ip = ip(request, ...rest);
          limited = decideNow(request, client);
        } catch (error) {
          return Promise.reject(error);
        }
        if (limited === undefined) return after(request, rest);
        if (limited instanceof Promise) return limited.then((l) => l ?? after(request, rest));
        return limited;
      };
    },
  });
}

/**
 * refuseProxyWarning throws when `proxyWarning` is given: core's proxy check compares the framework's
 * proxy setting with the peer and its forwarding headers, and here the application passes the address
 * itself. A TypeError at construction rather than an option silently ignored.
 */
function refuseProxyWarning(options: unknown): void {
  if (typeof options !== 'object' || options === null) return;
  const value = (options as { readonly proxyWarning?: unknown }).proxyWarning;
  if (value === undefined) return;
  throw new TypeError(
    `${OWNER}: proxyWarning is not taken by @ratekeeper/fetch, got ${describeValue(value)}: the client address is the one passed to each check ({ ip }), so there is no proxy setting to check`,
  );
}
