/**
 * The options of `@ratekeeper/fastify`: core's adapter options (RateLimitOptions, typed for a
 * FastifyRequest) plus the limited-response `handler`, accepted both at registration and per route in
 * `config.rateLimit`.
 *
 * The module augmentation below types `config.rateLimit` on every route: an options object gives that
 * route its own plan, `false` exempts it (no count, no headers). A name that is no option fails to
 * compile there too, even in an object written inline in `app.get(url, { config })` (config-type.ts).
 */
import type { Decision, RateLimitOptions } from '@ratekeeper/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteRateLimitConfig } from './config-type.js';

/**
 * RateLimitHandler answers a request the limiter denied, instead of the route handler, after the
 * rate-limit headers (and Retry-After) are written and the status is set to the default (429, or 503
 * when a store failing 'closed' decided). Its contract is a Fastify route handler's: answer through
 * `reply`, or return (or resolve to) the payload to send. A synchronous handler returning undefined
 * has answered; an async one resolving to undefined without answering gets the default body. A thrown
 * error or a rejection goes to Fastify's error handler.
 */
export type RateLimitHandler = (request: FastifyRequest, reply: FastifyReply, decision: Decision) => unknown;

/**
 * FastifyRateLimitOptions are the options of `fastify.register(rateLimit, options)`: a `limiter`, one
 * algorithm's shorthand options (each algorithm takes only its own), or `plans`, with the rest.
 */
export type FastifyRateLimitOptions = RateLimitOptions<FastifyRequest> & {
  /** Answers a limited request (default: the status and RFC 9457 body of core's limitedResponse). */
  readonly handler?: RateLimitHandler;
  /**
   * Registration only. true (default): every route is limited unless its `config.rateLimit` is false.
   * false: only the routes whose `config.rateLimit` is an options object are limited (merged over
   * these options, as always), as @fastify/rate-limit's `global: false`.
   */
  readonly global?: boolean;
  /**
   * Registration only. false (default): a request no route matched (`request.is404`, Fastify's
   * not-found handler) is neither counted nor limited, as with @fastify/rate-limit. true: it counts
   * under the registration's limit like any request, so a client probing for paths spends its budget.
   */
  readonly limitNotFound?: boolean;
};

/**
 * RouteRateLimitOptions are the options of one route's `config.rateLimit` (the registration's without
 * `global`), merged over the registration options: every behaviour option the route does not give is
 * inherited. A route naming no limiter option shares the registration's limiter; one giving `limiter`
 * uses it; one giving shorthand options gets its own limiter, starting from the registration's
 * shorthand (never its name). See route-limit.ts and the README for the whole rule. Typed like the
 * registration's: a size the route's `algorithm` does not take, shorthand beside a `limiter`,
 * `global`, or a misspelt name (`{ limt: 2 }`, also written inline in `app.get(url, { config })`,
 * see config-type.ts) does not compile.
 */
export type RouteRateLimitOptions = RateLimitOptions<FastifyRequest> & {
  /** Answers a limited request (default: the status and RFC 9457 body of core's limitedResponse). */
  readonly handler?: RateLimitHandler;
  /** Registration only: a route cannot change it. */
  readonly global?: never;
  /** Registration only: a route cannot change it. */
  readonly limitNotFound?: never;
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The decision of the ratekeeper limiter that decided this request (policy included), if any. */
    rateLimit?: Decision;
  }
  interface FastifyContextConfig {
    /**
     * This route's rate limit: options merged over the plugin's, or false to exempt the route.
     * RouteRateLimitOptions | false, refusing a name that is no option (`this`: config-type.ts).
     */
    rateLimit?: RouteRateLimitConfig<this, RouteRateLimitOptions>;
  }
}
