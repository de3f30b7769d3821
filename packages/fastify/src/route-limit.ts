/**
 * A RouteLimit is everything the onRequest hook needs for the requests of one route, prepared once:
 * core's PreparedRateLimit (validated options, the limiter, header values, the default 429 bodies), how
 * a decided request is answered (answer.ts, with the limited-response handler), and whether the key
 * needs the client IP at all.
 *
 * `prepareGlobal` validates the registration options. `prepareRoute` validates one route's
 * `config.rateLimit` merged over them: every behaviour option the route does not give (key, cost,
 * skip, headers, handler, …) is inherited. The limiter follows its own rule:
 * - a route naming no limiter option (LIMITER_OPTIONS) shares the registration's limiter, so `{ cost }`
 *   or `{ shadow: true }` alone changes how the route counts against the global budget, not the budget;
 * - a route giving `limiter` uses that limiter;
 * - a route giving shorthand options gets its own limiter, starting from the registration's shorthand
 *   (algorithm, sizes, store, clock; never the policy name) and overriding what it gives. A route that
 *   switches `algorithm` keeps only the store and clock, since the other algorithm's sizes would not
 *   apply. So `{ limit: 5 }` under a sliding-window registration is 5 per the same window, on the same
 *   store.
 *
 * Errors name the route and the option, with the class core chose (TypeError / RangeError).
 */
import type { ProxySetting } from '@ratekeeper/core';
import { LIMITER_OPTIONS, type PreparedRateLimit, type ProxyWarning, SHORTHAND, bySocket, describeValue, prepareRateLimit } from '@ratekeeper/core/adapter';
import type { FastifyRequest } from 'fastify';
import { type FastifyAnswer, fastifyAnswer } from './answer.js';
import type { FastifyRateLimitOptions, RouteRateLimitOptions } from './options.js';

export const OWNER = 'rateLimit';
const EXTRA = ['handler', 'global', 'limitNotFound'] as const;
/** The registration's shorthand options a shorthand route starts from (all but the policy name). */
const SHORTHAND_CARRIED = SHORTHAND.filter((k) => k !== 'name');

export interface RouteLimit {
  readonly prepared: PreparedRateLimit<FastifyRequest>;
  /** How a decided request is answered: the default body or the route's handler (answer.ts). */
  readonly answer: FastifyAnswer;
  /** False when a `key` function replaces the IP (core's readsIp), so request.ip (proxy-addr work) is never read. */
  readonly needsIp: boolean;
  /** The once-per-process trust-proxy check, in Fastify's terms. */
  readonly proxy: ProxyWarning;
}

const PROXY: ProxySetting = {
  framework: 'Fastify',
  // Not a hop count: Fastify 5.12.1 and later ignore a numeric trustProxy (see the README).
  trust: "set Fastify's `trustProxy` option to your proxy's addresses, e.g. Fastify({ trustProxy: '10.0.0.0/8' }) (an address, a CIDR or a list)",
  restrict: "set Fastify's `trustProxy` option to your proxies' addresses only, e.g. Fastify({ trustProxy: '10.0.0.0/8' }), or leave it off when clients connect directly",
};

/** prepareGlobal validates the registration options; errors name the option. */
export function prepareGlobal(options: FastifyRateLimitOptions | undefined): RouteLimit {
  const global = options?.global;
  if (global !== undefined && typeof global !== 'boolean') throw new TypeError(`${OWNER}: global must be a boolean, got ${describeValue(global)}`);
  const notFound = options?.limitNotFound;
  if (notFound !== undefined && typeof notFound !== 'boolean') throw new TypeError(`${OWNER}: limitNotFound must be a boolean, got ${describeValue(notFound)}`);
  return prepare(OWNER, options);
}

/** prepareRoute validates one route's `config.rateLimit` object merged over the registration options. */
export function prepareRoute(global: FastifyRateLimitOptions, globalLimit: RouteLimit, route: unknown, where: string): RouteLimit {
  const owner = `${OWNER}: config.rateLimit of ${where}`;
  if (typeof route !== 'object' || route === null || Array.isArray(route)) {
    throw new TypeError(`${owner} must be an options object or false, got ${describeValue(route)}`);
  }
  const own = route as RouteRateLimitOptions;
  if ((own as { global?: unknown }).global !== undefined) throw new TypeError(`${owner}: global applies to the registration only, not to a route`);
  if ((own as { limitNotFound?: unknown }).limitNotFound !== undefined) throw new TypeError(`${owner}: limitNotFound applies to the registration only, not to a route`);
  try {
    const merged = inherited(global, globalLimit, own);
    for (const [name, value] of Object.entries(own)) if (value !== undefined) merged[name] = value;
    return prepare(owner, merged);
  } catch (error) {
    throw withOwner(owner, error);
  }
}

/** inherited is what a route takes from the registration (see the file comment). */
function inherited(global: FastifyRateLimitOptions, globalLimit: RouteLimit, own: RouteRateLimitOptions): Record<string, unknown> {
  const base: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(global)) {
    if (!(LIMITER_OPTIONS as readonly string[]).includes(name) && name !== 'global' && name !== 'limitNotFound') base[name] = value;
  }
  if (!LIMITER_OPTIONS.some((name) => own[name] !== undefined)) {
    if (global.plans === undefined && global.plan === undefined) base['limiter'] = globalLimit.prepared.limiter;
    else Object.assign(base, { plans: global.plans, plan: global.plan });
  } else if (own.limiter === undefined && global.limiter === undefined && global.plans === undefined) {
    // 'token-bucket' is core's default algorithm (chooseLimiter).
    const globalAlgorithm = global.algorithm ?? 'token-bucket';
    const sameAlgorithm = (own.algorithm ?? globalAlgorithm) === globalAlgorithm;
    const carried = sameAlgorithm ? SHORTHAND_CARRIED : (['store', 'clock'] as const);
    for (const name of carried) if (global[name] !== undefined) base[name] = global[name];
  }
  return base;
}

/** The client's Node socket (none on a request made with fastify.inject), and Fastify's terms for option errors. */
const nodeClient = { ...bySocket((request: FastifyRequest) => request.raw.socket), framework: 'fastify' } as const;

function prepare(owner: string, options: FastifyRateLimitOptions | undefined): RouteLimit {
  const prepared = prepareRateLimit<FastifyRequest>(owner, options, EXTRA, nodeClient);
  const handler = options?.handler;
  if (handler !== undefined && typeof handler !== 'function') {
    throw new TypeError(`${owner}: handler must be a function, got ${describeValue(handler)}`);
  }
  return { prepared, answer: fastifyAnswer(prepared, handler), needsIp: prepared.readsIp, proxy: prepared.watchProxy(PROXY) };
}

/** withOwner prefixes a limiter constructor's message with the route, keeping the error's class. */
function withOwner(owner: string, error: unknown): unknown {
  if (!(error instanceof Error) || error.message.startsWith(owner)) return error;
  const Kind = error instanceof RangeError ? RangeError : TypeError;
  return new Kind(`${owner}: ${error.message}`, { cause: error });
}
