/**
 * A NestLimit is one named limit prepared once: core's PreparedRateLimit over Invocations (so every
 * option is validated by core at startup, with core's messages), the options it was built from (for a
 * decorator's limit to inherit from), and the policies its headers name.
 *
 * The user's hooks take `(req, context)`; core calls them with the Invocation, and they are wrapped
 * here once, never per call. `blockDuration` (throttler's ban) wraps the built limiter in a BanLimiter.
 * A limit's `name` is the decorators' handle; on a shorthand limit it is also the policy's name (in
 * headers and store keys), while a ready `limiter` keeps its own policy names.
 */
import { BanLimiter, type ProxySetting, type RateLimiter } from '@ratekeeper/core';
import { LIMITER_OPTIONS, type PreparedRateLimit, type ProxyWarning, SHORTHAND, chooseLimiter, prepareRateLimit } from '@ratekeeper/core/adapter';
import type { Invocation } from './invocation.js';

/** NestLimit is one limit, prepared (see above). */
export interface NestLimit {
  readonly name: string;
  readonly prepared: PreparedRateLimit<Invocation>;
  /** The options it was built from, in core's names (throttler's translated), hooks unwrapped. */
  readonly source: Readonly<Record<string, unknown>>;
  readonly banMs: number | undefined;
  /** The once-per-process trust-proxy checks, in the terms of each platform (by the response's kind). */
  readonly proxies: { readonly node: ProxyWarning; readonly fastify: ProxyWarning };
}

const EXPRESS: ProxySetting = {
  framework: 'Nest on Express',
  trust: "set Express's `trust proxy` on the Nest application, e.g. app.set('trust proxy', 'loopback, 10.0.0.0/8') on a NestExpressApplication",
  restrict:
    "set Express's `trust proxy` to your proxies' addresses only, e.g. app.set('trust proxy', '10.0.0.0/8') on a NestExpressApplication, or leave it off when clients connect directly",
};
const FASTIFY: ProxySetting = {
  framework: 'Nest on Fastify',
  trust: "set Fastify's `trustProxy` option, e.g. new FastifyAdapter({ trustProxy: '10.0.0.0/8' })",
  restrict: "set Fastify's `trustProxy` to your proxies' addresses only, e.g. new FastifyAdapter({ trustProxy: '10.0.0.0/8' }), or leave it off when clients connect directly",
};

type Hook = (...args: never[]) => unknown;
const WRAPPED = ['key', 'cost', 'skip', 'plan'] as const;
const AFTER = ['onDecision', 'countOutcome', 'settle'] as const;

/** gone and socket: a client whose socket closed while an async hook was awaited is not counted; delay mode watches it. */
const ADAPTER = {
  gone: (call: Invocation) => call.socket?.destroyed === true,
  socket: (call: Invocation) => call.socket,
};

/** prepareLimit prepares `source` (core's names) as the limit `name`; errors name `owner`. */
export function prepareLimit(owner: string, name: string, source: Readonly<Record<string, unknown>>, banMs: number | undefined): NestLimit {
  const options: Record<string, unknown> = { ...source };
  if (options['limiter'] !== undefined || options['plans'] !== undefined) delete options['name'];
  else if (options['name'] === undefined && name !== 'default') options['name'] = name;
  for (const hook of WRAPPED) {
    const user = options[hook];
    if (typeof user === 'function') options[hook] = (call: Invocation) => (user as Hook).call(undefined, ...([call.req, call.context] as never[]));
  }
  for (const hook of AFTER) {
    const user = options[hook];
    if (typeof user === 'function') options[hook] = (first: unknown, call: Invocation) => (user as Hook).call(undefined, ...([first, call.req, call.context] as never[]));
  }
  if (banMs !== undefined) banned(owner, options, banMs);
  const prepared = prepareRateLimit<Invocation>(owner, options as never, [], ADAPTER);
  return { name, prepared, source, banMs, proxies: { node: prepared.watchProxy(EXPRESS), fastify: prepared.watchProxy(FASTIFY) } };
}

/** banned replaces the limiter options of `options` with a BanLimiter around the limiter they build. */
function banned(owner: string, options: Record<string, unknown>, banMs: number): void {
  if (options['plans'] !== undefined) throw new TypeError(`${owner}: blockDuration does not apply to plans; wrap each plan's limiter in a BanLimiter`);
  const choice: Record<string, unknown> = {};
  for (const k of ['limiter', ...SHORTHAND]) {
    if (options[k] !== undefined) choice[k] = options[k];
    delete options[k];
  }
  const inner: RateLimiter = chooseLimiter(owner, choice as never);
  options['limiter'] = new BanLimiter({ limiter: inner as RateLimiter<'sync'>, banMs });
}

/** limiterOptionsOf tells whether `options` names anything that chooses a limiter (a route then gets its own). */
export function choosesLimiter(options: Readonly<Record<string, unknown>>): boolean {
  return LIMITER_OPTIONS.some((k) => options[k] !== undefined) || options['blockDuration'] !== undefined;
}
