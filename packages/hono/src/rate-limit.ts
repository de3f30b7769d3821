/**
 * rateLimit is ratekeeper's Hono middleware, a thin layer over @ratekeeper/fetch, running unchanged
 * wherever Hono runs (Node through @hono/node-server, Bun, Deno, Cloudflare Workers). It keys the
 * request, asks the limiter once, sets `c.var.rateLimit` to the Decision, and either awaits `next()`
 * and writes the rate-limit headers on `c.res`, or returns the limited Response itself (429
 * `application/problem+json` by default, 503 when a store failing 'closed' decided).
 *
 * The client address is explicit, because only the runtime knows it: pass `getConnInfo` from the
 * runtime's Hono helper (`hono/bun`, `hono/deno`, `hono/cloudflare-workers`,
 * `@hono/node-server/conninfo`) or an `ip(c)` function (behind a proxy: the header it overwrites).
 * With neither (and no `key`), rateLimit throws when it is created. A request the source gives no
 * usable address for is never a shared bucket: a MissingIpError (default) or, with missingIp 'skip',
 * uncounted.
 *
 * Errors thrown by `key`, `skip`, `cost`, `onDecision`, `ip`, `getConnInfo` or `handler`, a missing
 * address and a failed limiter (a RateLimiterError without the store's text) are thrown from the
 * middleware, so Hono's error handler (`app.onError`; default: a plain 500) answers them.
 *
 * A client gone while an async hook was awaited (`c.req.raw.signal` aborted) is not counted and the
 * route does not run (@ratekeeper/fetch answers an empty 499 nobody receives). With `countOutcome`,
 * `settle` or a limiter holding leases (ConcurrencyLimiter), `c.res` after `next()` (the route's
 * answer, or app.onError's for an error it threw; a 500 when an error escapes next()) is handed over
 * to @ratekeeper/fetch: the charge is settled (the lease released) once its body has been read to the
 * end or cancelled, or, when the client went away before (the request's signal aborted), at once,
 * as that answer with `aborted: true`: the lease lasts as long as the route's work, not the client.
 */
import type { Decision, LimiterSource, RateLimitBaseOptions } from '@ratekeeper/core';
import { describeValue } from '@ratekeeper/core/adapter';
import { rateLimit as fetchRateLimit, withHeaders } from '@ratekeeper/fetch';
import type { Context, Env, MiddlewareHandler } from 'hono';

const OWNER = 'rateLimit';

/** RateLimitVariables type `c.var.rateLimit`: the decision for this request (absent when skipped). */
export type RateLimitVariables = { rateLimit: Decision };

// `c.var.rateLimit` and `c.get('rateLimit')` typed on every app, as Hono's own middleware (requestId)
// types its variable: a plain `new Hono()` (and JavaScript, which cannot pass an Env) reads it too.
declare module 'hono' {
  interface ContextVariableMap extends RateLimitVariables {}
}

/**
 * HonoRateLimitOptions are core's adapter options, where the address comes from, and the handler;
 * `proxyWarning` is refused (the address comes from getConnInfo or ip, chosen by the application, so
 * there is no proxy setting to check).
 */
export type HonoRateLimitOptions<E extends Env = Env> = Omit<RateLimitBaseOptions<Context<E>>, 'proxyWarning'> &
  LimiterSource<Context<E>> & {
    /** The runtime's conninfo helper; the key is its `remote.address`. */
    readonly getConnInfo?: (c: Context) => { readonly remote: { readonly address?: string | undefined } };
    /** Reads the client address from the context instead (exclusive with getConnInfo). */
    readonly ip?: (c: Context<E>) => string | null | undefined;
    /**
     * Builds the Response for a blocked request; the rate-limit headers and Retry-After are added to it.
     * A 200 (`c.text('Too many requests')` sets no status) is answered as 429 (503 for a 'closed' store
     * failure) instead; any other status, e.g. `c.json(body, 403)`, is kept.
     */
    readonly handler?: (c: Context<E>, decision: Decision) => Response | Promise<Response>;
  };

/** rateLimit validates `options` and returns the middleware, for `app.use`, a sub-app or one route. */
export function rateLimit<E extends Env = Env>(options?: HonoRateLimitOptions<E>): MiddlewareHandler<E & { Variables: RateLimitVariables }> {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new TypeError(`${OWNER}: options must be an object, got ${describeValue(options)}`);
  }
  const refused = (options as { readonly proxyWarning?: unknown } | undefined)?.proxyWarning;
  if (refused !== undefined) {
    throw new TypeError(
      `${OWNER}: proxyWarning is not taken by @ratekeeper/hono, got ${describeValue(refused)}: the client address comes from getConnInfo or ip(c), so there is no proxy setting to check`,
    );
  }
  const { getConnInfo, ip, ...rest } = options ?? {};
  const limit = fetchRateLimit<Context<E>>(rest, (c) => c.req.raw, 'hono');
  const address = addressOf<E>(getConnInfo, ip, rest.key !== undefined);
  const writeOn = outermostFirst(limit);
  // The address handed to nowKept, which reads it at once: one object per middleware, not one per request.
  const client: { ip: string | null | undefined } = { ip: undefined };

  /** go runs the rest of the app for an admitted (or uncounted: no decision) request, then writes the headers. */
  const go = async (c: Context<E & { Variables: RateLimitVariables }>, next: () => Promise<void>, decision: Decision | undefined): Promise<undefined> => {
    const context = c as unknown as Context<E>;
    if (decision === undefined) {
      await next();
      return undefined;
    }
    c.set('rateLimit', decision);
    try {
      await next();
    } catch (error) {
      // Hono answers its errors inside next(); one that escapes still ends the work: hand over its 500.
      limit.finish(context, new Response(null, { status: 500 }));
      throw error;
    }
    // After next, like Hono's own header middleware: c.res is then whatever the route returned. A
    // Response with immutable headers (a fetch() or redirect Response) is copied, as @ratekeeper/fetch does.
    const written = withHeaders(c.res, writeOn, decision);
    if (written !== c.res) c.res = written;
    const finished = limit.finish(context, c.res);
    if (finished !== c.res) c.res = finished;
    return undefined;
  };

  // The check without its promise (limit.nowKept): with the memory store the request is decided in
  // this turn, its Decision carried to the headers here (nothing remembered on the Context), and only the app after it
  // is awaited. A later answer (a remote store) is remembered by the limit, read back with decision().
  return function rateLimit(c, next) {
    const context = c as unknown as Context<E>;
    let limited: Decision | Response | Promise<Response | undefined> | undefined;
    try {
      client.ip = address?.(context);
      limited = limit.nowKept(context, client);
    } catch (error) {
      return Promise.reject(error);
    }
    if (limited === undefined) return go(c, next, undefined);
    if (limited instanceof Promise) return limited.then<Response | undefined>((l) => l ?? go(c, next, limit.decision(context)));
    if ('allowed' in limited) return go(c, next, limited);
    return Promise.resolve(limited);
  };
}

/**
 * outermostFirst builds, once per middleware, the writer of a decision's fields on a Response's
 * Headers. It writes after `next()`, so an inner limiter has written first: List fields get this
 * limiter's items in front (the RateLimit Lists read outermost first, as on every adapter), and a
 * replacing field (legacy X-RateLimit-*) is left as the inner, later limiter wrote it. The setter is
 * built once too and writes on the Headers of the call in progress (writeHeaders is synchronous and
 * calls nothing else), so a response costs no closure.
 */
function outermostFirst(limit: {
  writeHeaders(decision: Decision, set: (name: string, value: string, append: boolean) => void): void;
}): (headers: Headers, decision: Decision) => void {
  let target: Headers | undefined;
  const set = (name: string, value: string, append: boolean): void => {
    const headers = target as Headers;
    const prev = headers.get(name);
    if (prev === null) headers.set(name, value);
    else if (append) headers.set(name, `${value}, ${prev}`);
  };
  return function writeOn(headers: Headers, decision: Decision): void {
    target = headers;
    try {
      limit.writeHeaders(decision, set);
    } finally {
      target = undefined;
    }
  };
}

/** addressOf checks the address source once and returns it (undefined when `key` makes it moot). */
function addressOf<E extends Env>(getConnInfo: unknown, ip: unknown, keyed: boolean): ((c: Context<E>) => string | null | undefined) | undefined {
  if (getConnInfo !== undefined && typeof getConnInfo !== 'function') throw new TypeError(`${OWNER}: getConnInfo must be a function, got ${describeValue(getConnInfo)}`);
  if (ip !== undefined && typeof ip !== 'function') throw new TypeError(`${OWNER}: ip must be a function, got ${describeValue(ip)}`);
  if (getConnInfo !== undefined && ip !== undefined) throw new TypeError(`${OWNER}: give either getConnInfo or ip, not both`);
  if (typeof ip === 'function') return ip as (c: Context<E>) => string | undefined;
  if (typeof getConnInfo === 'function') return (c) => (getConnInfo as HonoRateLimitOptions['getConnInfo'] & {})(c as unknown as Context).remote.address;
  if (keyed) return undefined;
  throw new TypeError(
    `${OWNER}: say where the client address comes from: getConnInfo (from hono/bun, hono/deno, hono/cloudflare-workers or @hono/node-server/conninfo), ip(c), or key(c)`,
  );
}
