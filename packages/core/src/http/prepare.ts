/**
 * The framework-neutral half of every adapter. `prepareRateLimit` validates the options once, when the
 * middleware is created, and returns a PreparedRateLimit; an adapter then only translates:
 *
 *   decide(req, ip)  -> undefined (skipped) | Decision | Promise<Decision | undefined | null>
 *   writeHeaders(res, set, decision)
 *   blocks(decision) ? answer with handler / body(decision) : pass the request on
 *
 * Key: `key(req, client)` when given (`client`: the default key below, or undefined), else the framework's resolved client IP through `ipKey` (IPv6 grouped by
 * `ipv6Subnet`). A request without a usable IP is never counted in a shared bucket: `missingIp:
 * 'reject'` (default) raises a MissingIpError (status 500) on the framework's error path, which makes
 * a misconfigured proxy setup loud; 'skip' lets such requests through uncounted.
 * `key`, `cost`, `skip` and `plan` may answer with a promise (decide.ts: the synchronous path stays
 * promise-free; a client gone during the wait is not counted, decide resolving to null). Errors
 * thrown (or rejected) by them or by `onDecision` are thrown from decide or reject its promise, for
 * the adapter to hand to the framework's error path. `onDecision` may return a promise: decide then
 * answers once it settles. A limiter whose promise rejects (a store that broke its never-reject
 * contract) surfaces as a RateLimiterError without the store's message, so no error text can reach a
 * client even through a framework's development error page.
 * `plans` + `plan` choose one of several prebuilt limiters per request (plans.ts). `countOutcome` and
 * `settle` adjust an admitted request's charge once its work is over (settle.ts, work.ts): the
 * adapter hands the raw response to `watch` (Node) or calls `claim` and settles with the outcome
 * itself (Web Responses); both are undefined (and nothing is recorded) when both hooks are off and no
 * limiter holds leases. A limiter with `release` (a ConcurrencyLimiter, or a composite with one) gets
 * every admitted request's lease released there, exactly once, when the response completes or fails,
 * or, when the client left first, when the handler answers (at most `abandonedMs` later).
 * `shadow: true` decides, writes headers and reports, but never blocks. `mode: 'delay'` holds a request
 * over the limit until it fits, up to `maxDelayMs` (delay.ts), watching the socket the adapter names.
 * `watchProxy` gives the adapter the once-per-process trust-proxy check (proxy-check.ts).
 */
import type { Decision } from '../decision.js';
import type { RateLimiter } from '../limiter/limiter.js';
import type { Telemetry } from '../telemetry.js';
import { describeValue } from '../validate.js';
import { refusePeerValues } from './options/peer-values.js';
import { refuseUnknownOptions } from './options/unknown-options.js';
import { checkOptions } from './options/checks.js';
import { type Decide, type Hooks, decider } from './decide/decide.js';
import { type ClientSocket, type DelayOptions, checkDelay } from './decide/delay.js';
import { policiesProblem } from './decide/decision-check.js';
import { type HeaderSetter, type HeaderStyle, writeHeaders } from './respond/headers.js';
import type { LimitedBody } from './respond/limited-bodies.js';
import { type AfterHooks, type Charge, type Claim, type Finished, claimer } from './settle/settle.js';
import { type Plans, limited, preparePlans } from './options/plans.js';
import { ProxyWarning, type ProxySetting } from './client/proxy-check.js';
import { OPTIONS } from './options/options.js';
import { type LimiterChoice, type ReadyLimiter, chooseLimiter } from './options/shorthand.js';
import { type Watch, watcher } from './settle/work.js';

/**
 * RateLimitOptions are the options every adapter takes: what decides (a `limiter`, one algorithm's
 * shorthand options, or `plans` with `plan`: LimiterSource) and how requests are counted and answered
 * (RateLimitBaseOptions).
 */
export type RateLimitOptions<Req> = RateLimitBaseOptions<Req> & LimiterSource<Req>;

/** LimiterSource is what decides the requests: a ready limiter, one algorithm's shorthand options, or plans. */
export type LimiterSource<Req> = LimiterChoice | RateLimitPlans<Req>;

/** RateLimitPlans: limiters per caller, one chosen per request by `plan(req)` (plans.ts); no limiter or shorthand option goes with them. */
export interface RateLimitPlans<Req> extends Omit<ReadyLimiter, 'limiter' | 'plans' | 'plan'> {
  /** Limiters by plan name, built up front; `plan(req)` names the one that decides a request. */
  readonly plans: Readonly<Record<string, RateLimiter>>;
  /** Names the request's plan, one of the keys of `plans`; may be async. */
  readonly plan: (req: Req) => string | PromiseLike<string>;
  readonly limiter?: never;
}

/** RateLimitBaseOptions are the adapter options besides the limiter's: the key, cost, headers, hooks and lists. */
export interface RateLimitBaseOptions<Req> extends DelayOptions {
  /**
   * The key to count the request under (default: the client IP as the framework resolved it); may be
   * async. `client` is that default key (the client IP's key, IPv6 grouped by `ipv6Subnet`; undefined
   * when the request has no usable IP), for a key that scopes the client, such as the adapters'
   * `routeKey`. A key that throws a MissingIpError is a request without a usable IP (`missingIp`).
   */
  readonly key?: (req: Req, client?: string) => string | PromiseLike<string>;
  /** The request's cost in units, a positive integer (default 1); may be async. */
  readonly cost?: (req: Req) => number | PromiseLike<number>;
  /** Return true to let the request through without counting it or writing headers, false to count it (anything else is a TypeError); may be async. */
  readonly skip?: (req: Req) => boolean | PromiseLike<boolean>;
  /** Which rate-limit headers to write (default 'draft-10'). */
  readonly headers?: HeaderStyle;
  /** Prefix length grouping IPv6 clients, 32 to 64 (default 56). */
  readonly ipv6Subnet?: number;
  /** What to do with a request that has no usable client IP (default 'reject'). */
  readonly missingIp?: 'reject' | 'skip';
  /** Decide and report, never block (default false). */
  readonly shadow?: boolean;
  /**
   * Called with every decision, before the response is chosen. Typed `void` so that any function fits
   * (an async one included); a promise it returns is waited for.
   */
  readonly onDecision?: (decision: Decision, req: Req) => void;
  /** Where every decision is reported (metrics, traces), e.g. `@ratekeeper/otel`'s otelTelemetry(). */
  readonly telemetry?: Telemetry;
  /** After the response: return false to give the request's charge back (settle.ts). */
  readonly countOutcome?: (outcome: Finished, req: Req) => boolean | PromiseLike<boolean>;
  /** After the response: the request's real cost; the difference from `cost` is refunded or charged (settle.ts). */
  readonly settle?: (outcome: Finished, req: Req) => number | PromiseLike<number>;
  /**
   * How long, in ms, a request whose client left before its answer is still waited for when its
   * handler never answers: its lease held and its outcome pending until the handler answers, or this
   * long at most (work.ts). Default 60000; Infinity waits for the handler however long; 0 ends the
   * wait when the client leaves, so a disconnect ends the lease while the handler works.
   */
  readonly abandonedMs?: number;
  /**
   * Warn (once per process, through process warnings) when the framework's trust-proxy setting looks
   * wrong for where the server runs; see proxy-check.ts (default true). Looked at only for the default
   * key. Never changes a decision.
   */
  readonly proxyWarning?: boolean;
  /**
   * IP addresses and CIDR ranges (IPv4, IPv6; IPv4-mapped read as IPv4) whose requests pass uncounted,
   * with no rate-limit headers. Matched against the client IP the framework resolved, before counting.
   */
  readonly allowList?: readonly string[];
  /** Addresses and ranges answered 403 problem+json before counting; wins over allowList. */
  readonly denyList?: readonly string[];
}

/**
 * RateLimitAdapter is what only the framework knows, handed to prepareRateLimit by the adapter itself.
 * `gone(req)` tells whether the request's client went away (its socket closed).
 */
export interface RateLimitAdapter<Req> {
  readonly gone?: (req: Req) => boolean;
  /** The request's client connection, which delay mode watches to release a wait whose client left. */
  readonly socket?: (req: Req) => ClientSocket | undefined;
  /** The framework whose terms option errors use (a `message` refused with a handler written for it: options/handler-hints.ts). */
  readonly framework?: 'express' | 'fastify' | 'koa' | 'hono' | 'fetch';
}

/**
 * PreparedRateLimit is what prepareRateLimit answers: the options validated once, and what the adapter
 * calls per request. (A *plan* is one of the named limiters of the `plans` option.)
 */
export interface PreparedRateLimit<Req> {
  /** The limiter (with plans: the first plan's; `limiters` lists them all). */
  readonly limiter: RateLimiter;
  readonly limiters: readonly RateLimiter[];
  decide: Decide<Req>;
  blocks(decision: Decision): boolean;
  writeHeaders<Res>(res: Res, set: HeaderSetter<Res>, decision: Decision): void;
  /** body is the default limited response for a denial, as precomputed bytes. */
  body(decision: Decision): LimitedBody;
  /**
   * watch settles an admitted request's charge once its work is over (work.ts: releases its lease,
   * runs countOutcome and settle); undefined unless countOutcome or settle is given or a limiter
   * releases. Adapters hand it every admitted decision's raw Node response, as soon as they have it;
   * one that knows when its handler ended (Koa) calls `end()` on the Work it answers.
   */
  readonly watch: Watch<Req> | undefined;
  /**
   * claim takes an admitted request's charge and returns the function that settles it with the
   * response's outcome (for responses that are not Node's: fetch, Hono); undefined unless
   * countOutcome or settle is given or a limiter releases. Its Settle releases the request's lease
   * and runs the hooks, on its first call only. When the client left before the Response was handed
   * over, adapters bound the wait with `abandon(settle, prepared.abandonedMs)` (work.ts).
   */
  readonly claim: Claim<Req> | undefined;
  /** The `abandonedMs` option, validated (default 60000). */
  readonly abandonedMs: number;
  /**
   * Whether decide reads the client IP, so the adapter must resolve it (Fastify's request.ip runs
   * proxy-addr): for the default key, for a key that declares the `client` parameter (`(req, client)`,
   * as `routeKey` does), and for `allowList` / `denyList`. Any other key replaces the IP, and is
   * handed undefined as its client.
   */
  readonly readsIp: boolean;
  /**
   * watchProxy returns the trust-proxy check for these options, described in the framework's own terms;
   * its `pending` is always false with proxyWarning: false or a `key` function that does not declare `client`.
   */
  watchProxy(setting: ProxySetting): ProxyWarning;
}

const KNOWN: ReadonlySet<string> = new Set(OPTIONS);

/** prepareRateLimit validates adapter options and returns them prepared; `extra` lists adapter-only option names. */
export function prepareRateLimit<Req>(
  owner: string,
  options: RateLimitOptions<Req> | undefined,
  extra: readonly string[] = [],
  adapter: RateLimitAdapter<Req> = {},
): PreparedRateLimit<Req> {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new TypeError(`${owner}: options must be an object, got ${describeValue(options)}`);
  }
  const o: RateLimitOptions<Req> = options ?? {};
  refuseUnknownOptions(owner, o, KNOWN, extra, adapter.framework);
  refusePeerValues(owner, o as Readonly<Record<string, unknown>>, adapter.framework);
  const c = checkOptions(owner, o as Readonly<Record<string, unknown>>);
  // A key that declares `client` (two parameters) is built on the IP (routeKey); any other replaces it.
  const keyReadsIp = c.key === undefined || (c.key as (...args: unknown[]) => unknown).length >= 2;
  const watchesProxy = c.proxyWarning && keyReadsIp;
  const plans: Plans | undefined = o.plans === undefined && o.plan === undefined ? undefined : preparePlans(owner, o);
  const one = plans === undefined ? limited(chooseLimiter(owner, o as LimiterChoice)) : undefined;
  const limiter = one?.limiter ?? (plans as Plans).limiters[0]!;
  const pick = plans === undefined ? () => limiter : plans.pick;
  const after = { countOutcome: c.countOutcome, settle: c.settle } as AfterHooks<Req>;
  const all = plans?.limiters ?? [limiter];
  const releases = all.some((l) => typeof l.release === 'function');
  const charges = after.countOutcome === undefined && after.settle === undefined && !releases ? undefined : new WeakMap<object, Charge>();
  // Each limiter's own policies are checked here, once: per request, a decision naming one of them is
  // then one identity test (decision-check.ts), and the RateLimit-Policy values are header-safe.
  for (const [i, l] of all.entries()) {
    const bad = policiesProblem(l.policies);
    if (bad !== undefined) throw new TypeError(`${owner}: ${plans === undefined ? 'limiter' : `plans.${plans.names[i]}`} ${bad}`);
  }
  if (after.countOutcome !== undefined || after.settle !== undefined) refuseLeaseAdjustments(owner, all, plans, after.settle !== undefined);
  const refundless = after.countOutcome === undefined && after.settle === undefined ? -1 : all.findIndex((l) => typeof l.refund !== 'function' || l.refundable === false);
  if (refundless >= 0)
    throw new TypeError(`${owner}: countOutcome and settle need limiters with refund(); ${plans === undefined ? 'limiter' : `plans.${plans.names[refundless]}`} has none`);
  const { shadow, abandonedMs } = c;
  const style = c.headers;
  const delay = checkDelay(owner, o, shadow, all);
  if (delay !== undefined && adapter.socket === undefined)
    throw new TypeError(`${owner}: mode 'delay' needs an adapter that watches the client's connection (Express, Fastify, Koa, fetch, Hono)`);
  const hooks: Hooks<Req> = {
    allowList: c.allowList,
    denyList: c.denyList,
    key: c.key as Hooks<Req>['key'],
    cost: c.cost as Hooks<Req>['cost'],
    skip: c.skip as Hooks<Req>['skip'],
    plan: plans === undefined ? undefined : o.plan,
    onDecision: c.onDecision as Hooks<Req>['onDecision'],
    subnet: c.ipv6Subnet,
    missingIp: c.missingIp,
    gone: adapter.gone,
    delay,
    socket: delay === undefined ? undefined : adapter.socket,
    telemetry: c.telemetry,
    shadow,
    charges,
  };

  const claim = charges === undefined ? undefined : claimer(owner, after, charges, releases);
  return {
    limiter,
    limiters: all,
    decide: decider(owner, limiter, pick, hooks),
    blocks: (decision) => !decision.allowed && !shadow,
    writeHeaders(res, set, decision) {
      if (decision.forbidden === true) return;
      const blocked = !decision.allowed && !shadow;
      if (style !== false || blocked) writeHeaders(res, set, decision, style, one !== undefined ? one.field : (plans as Plans).fieldOf(decision), blocked);
    },
    body: one !== undefined ? (decision) => one.bodies.get(decision) : (plans as Plans).bodyOf,
    watch: watcher(claim, abandonedMs),
    claim,
    abandonedMs,
    readsIp: keyReadsIp || c.allowList !== undefined || c.denyList !== undefined,
    watchProxy: (setting) => new ProxyWarning(owner, setting, watchesProxy),
  };
}

/**
 * refuseLeaseAdjustments: a lease goes back by itself when the response ends, so countOutcome has
 * nothing to give back on a limiter holding only leases, and settle's extra charge would take leases
 * no one releases; both are refused at construction rather than silently double-released.
 */
function refuseLeaseAdjustments(owner: string, all: readonly RateLimiter[], plans: Plans | undefined, settles: boolean): void {
  for (const [i, l] of all.entries()) {
    if (typeof l.release !== 'function') continue;
    const what = plans === undefined ? 'limiter' : `plans.${plans.names[i]}`;
    if (settles) throw new TypeError(`${owner}: settle cannot charge extra on a limiter that holds leases; ${what} does`);
    if (l.policies.every((p) => p.algorithm === 'concurrency'))
      throw new TypeError(`${owner}: countOutcome has nothing to give back on ${what}: it holds only leases, which are released when the response ends`);
  }
}

/** @deprecated Renamed `PreparedRateLimit` (a plan is one of the `plans`); this name leaves in the next minor version. */
export type RateLimitPlan<Req> = PreparedRateLimit<Req>;
