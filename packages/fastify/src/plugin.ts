/**
 * rateLimit is ratekeeper's Fastify 5 plugin: `fastify.register(rateLimit, options)`. Wrapped with
 * fastify-plugin, so its hook lands in the context that registers it and covers that context's routes,
 * its not-found handler and all its child contexts (Fastify hands a lifecycle hook added later to the
 * children that already exist, so registration order does not matter for coverage).
 *
 * It checks in an `onRequest` hook, before the body is read: key the request, ask the limiter once,
 * write the headers, then continue or answer (answer.ts). The hook is context-level rather than added
 * to each route in `onRoute` (the @fastify/rate-limit way), because only a context hook covers 404s and
 * the routes `onRoute` never sees: those added to the instance before the plugin finished loading
 * (`app.register(rateLimit); app.get(…)` without await) and those of contexts registered before it.
 * The price is one `request.routeOptions` read per request to find the route's limit. (The hook covers
 * the not-found handler; whether it limits it is `limitNotFound`'s choice, below.)
 *
 * Per-route `config.rateLimit`: `false` exempts the route (no count, no headers); an options object
 * replaces the registration's limit for that route (merged over the registration options, see
 * route-limit.ts), so a request is counted exactly once, by the route's limit. Objects are prepared in
 * `onRoute`, at registration, so a bad option fails at startup naming the route and the option; one
 * object is one limit, so a GET route and its automatic HEAD route share one limiter, and so do routes
 * handed the same object. A route `onRoute` never saw is prepared on its first request instead (a bad
 * option then reaches the error handler).
 *
 * Every error on the decision path reaches Fastify's error handler (a 500), on a synchronous limiter
 * (Fastify's hook runner catches a throw) and on an async one (the promise chain ends in `next`):
 * errors from key/skip/cost/onDecision/handler, a limiter that failed or answered a non-Decision
 * (core's RateLimiterError). Nothing is written once the reply was sent by someone else.
 *
 * The trust-proxy check (core's proxy-check.ts) looks at requests until it has warned, naming Fastify's
 * `trustProxy` option; proxyWarning: false turns it off. It never changes a decision.
 *
 * A request no route matched (Fastify's not-found handler, `request.is404`) is not limited, as
 * @fastify/rate-limit does not limit it: no count, no headers, so probing for paths never spends a
 * client's budget. `limitNotFound: true` counts it under the registration's limit instead (the limit
 * a scanner meets); with `global: false` it stays unlimited.
 *
 * `global: false` limits only the routes whose `config.rateLimit` is an options object. The decision
 * is left on `request.rateLimit` (decorated, typed in options.ts) for handlers and logs. A request
 * whose socket closed while an async hook was being awaited is not counted and gets nothing more.
 *
 * On a synchronous limiter (the memory store) an allowed request costs the route lookup, a Decision
 * and its header strings: no promise and no closure per request.
 */
import type { Decision } from '@ratekeeper/core';
import { CLIENT_CLOSED, type Decided, answerNode } from '@ratekeeper/core/adapter';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import type { FastifyRateLimitOptions } from './options.js';
import { type RouteLimit, prepareGlobal, prepareRoute } from './route-limit.js';

function rateLimitPlugin(fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void): void {
  // A callback plugin must report, not throw: avvio does not catch a synchronous throw, so an invalid
  // option would escape as an uncaught exception and leave ready() pending forever.
  try {
    install(fastify, options ?? {});
  } catch (error) {
    done(error as Error);
    return;
  }
  done();
}

function install(fastify: FastifyInstance, registration: FastifyRateLimitOptions): void {
  const global = prepareGlobal(registration);
  const unlimited = registration.global === false ? undefined : global;
  // @fastify/rate-limit limits routes, so a request no route matched is never counted: nor is it here,
  // unless limitNotFound asks for it (then it counts under the registration's limit).
  const notFound = registration.limitNotFound === true ? unlimited : undefined;
  const limits = new WeakMap<object, RouteLimit>();
  if (!fastify.hasRequestDecorator('rateLimit')) fastify.decorateRequest('rateLimit', undefined);

  const routeLimit = (config: object, where: string): RouteLimit => {
    let limit = limits.get(config);
    if (limit === undefined) limits.set(config, (limit = prepareRoute(registration, global, config, where)));
    return limit;
  };

  const limitFor = (request: FastifyRequest): RouteLimit | undefined => {
    if (request.is404) return notFound;
    const route = request.routeOptions;
    const config = route.config.rateLimit;
    if (config === undefined) return unlimited;
    if (config === false) return undefined;
    return limits.get(config) ?? routeLimit(config, describeRoute(route.method, route.url));
  };

  fastify.addHook('onRoute', (route: RouteOptions) => {
    const config: unknown = route.config?.rateLimit;
    if (config === undefined || config === false) return;
    if (typeof config !== 'object' || config === null) prepareRoute(registration, global, config, describeRoute(route.method, route.url));
    else routeLimit(config, describeRoute(route.method, route.url));
  });

  fastify.addHook('onRequest', function rateLimit(request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction): void {
    const limit = limitFor(request);
    if (limit === undefined) {
      next();
      return;
    }
    let ip: string | undefined;
    if (limit.needsIp) {
      ip = request.ip;
      if (limit.proxy.pending) limit.proxy.observe(ip, request.socket?.remoteAddress, request.headers);
    }
    // A throw from decide or answerNode on this synchronous path is caught by Fastify's hook runner.
    const first = limit.prepared.decide(request, ip);
    if (first === undefined) next();
    // The second `then` also catches a throw from answerNode, which would otherwise be an unhandled rejection.
    else if (first instanceof Promise) first.then((later: Decided) => resume(limit, request, reply, next, later)).then(undefined, next);
    else decided(limit, request, reply, next, first);
  });
}

/** resume goes on from an async decide: skipped goes on; a gone client (null) or an answered reply gets nothing more. */
function resume(limit: RouteLimit, request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction, later: Decided): void {
  if (later === undefined) next();
  else if (later !== null) decided(limit, request, reply, next, later);
}

/**
 * decided hands an admitted request's response to core's watch first, whatever happens next (its lease
 * is released when its work is over: the response completed or failed, or, when the client left
 * first, the handler answered anyway; core's http/settle/work.ts), then answers it (core's answerNode
 * with the route's steps, answer.ts), unless someone else already answered.
 *
 * A request whose client left before its body arrived (an aborted POST, decided by a remote store after
 * the socket closed) has no work to follow: Fastify attaches its body reader to a stream that has
 * already ended and will never emit again, so the handler never runs and nothing answers. Its work ends
 * here (CLIENT_CLOSED), rather than after `abandonedMs` with its lease held all that time.
 */
function decided(limit: RouteLimit, request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction, decision: Decision): void {
  const work = limit.prepared.watch?.(request, reply.raw, decision);
  if (request.raw.destroyed && !request.raw.complete) return work?.end(CLIENT_CLOSED.status);
  answerNode(limit.prepared, limit.answer, request, reply, next, decision);
}

function describeRoute(method: string | readonly string[] | undefined, url: string | undefined): string {
  return `route ${Array.isArray(method) ? method.join(',') : (method ?? '*')} ${url ?? '(not found)'}`;
}

/** rateLimit is the plugin: `fastify.register(rateLimit, options)`. */
export const rateLimit = fastifyPlugin(rateLimitPlugin, { name: '@ratekeeper/fastify', fastify: '5.x' });
