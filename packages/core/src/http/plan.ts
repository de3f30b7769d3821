/**
 * The framework-neutral half of every adapter. `prepareRateLimit` validates the options once, when the
 * middleware is created, and returns a RateLimitPlan; an adapter then only translates:
 *
 *   decide(req, ip)  -> undefined (skipped) | Decision | Promise<Decision>
 *   writeHeaders(res, set, decision)
 *   blocks(decision) ? answer with handler / limitedResponse(decision) : pass the request on
 *
 * Key: `key(req)` when given, else the framework's resolved client IP through `ipKey` (IPv6 grouped by
 * `ipv6Subnet`). A request without a usable IP is never counted in a shared bucket: `missingIp:
 * 'reject'` (default) raises a MissingIpError (status 500) on the framework's error path, which makes
 * a misconfigured proxy setup loud; 'skip' lets such requests through uncounted.
 * Errors thrown by `key`, `cost`, `skip` or `onDecision` are thrown from decide (sync) or reject its
 * promise, for the adapter to hand to the framework's error path. `key`, `cost` and `skip` must answer
 * synchronously: a promise from one is a TypeError (and its rejection cannot become an unhandled one).
 * `onDecision` may return a promise: decide then answers once it settles, and its rejection rejects
 * decide. A limiter that fails in any way (its promise rejects, its consume throws, it answers
 * something that is not a Decision: decide.ts, decision-check.ts) surfaces as a RateLimiterError
 * without the store's message, so no error text can reach a client even through a framework's
 * development error page. A limiter whose own policies are not header-safe is refused here, at
 * construction.
 * `shadow: true` decides, writes headers and reports, but never blocks.
 * `watchProxy` gives the adapter the once-per-process trust-proxy check (proxy-check.ts).
 */
import type { Decision } from '../decision.js';
import type { RateLimiter } from '../limiter.js';
import { type Telemetry, checkTelemetry } from '../telemetry.js';
import { describeValue, refuseUnknown } from '../validate.js';
import { decider } from './decide.js';
import { policiesProblem } from './decision-check.js';
import { type HeaderSetter, type HeaderStyle, checkHeaderStyle, policyField, writeHeaders } from './headers.js';
import { DEFAULT_IPV6_SUBNET, checkIpv6Subnet } from './ip.js';
import { IpList } from './ip-list.js';
import { ProxyWarning, type ProxySetting } from './proxy-check.js';
import { type LimiterChoice, chooseLimiter } from './shorthand.js';


export interface RateLimitOptions<Req> extends LimiterChoice {
  /** The key to count the request under (default: the client IP as the framework resolved it). */
  readonly key?: (req: Req) => string;
  /** The request's cost in units, a positive integer (default 1). */
  readonly cost?: (req: Req) => number;
  /** Return true to let the request through without counting it or writing headers. */
  readonly skip?: (req: Req) => boolean;
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

export interface RateLimitPlan<Req> {
  readonly limiter: RateLimiter;
  decide(req: Req, ip: string | undefined): Decision | Promise<Decision> | undefined;
  blocks(decision: Decision): boolean;
  writeHeaders<Res>(res: Res, set: HeaderSetter<Res>, decision: Decision): void;
  /**
   * watchProxy returns the trust-proxy check for this plan, described in the framework's own terms;
   * its `pending` is always false with proxyWarning: false or a `key` function.
   */
  watchProxy(setting: ProxySetting): ProxyWarning;
}

const KNOWN = new Set(['limiter', 'algorithm', 'capacity', 'refillPerSecond', 'limit', 'windowMs', 'name', 'store', 'clock', 'key', 'cost', 'skip', 'headers', 'ipv6Subnet', 'missingIp', 'shadow', 'onDecision', 'telemetry', 'proxyWarning', 'allowList', 'denyList']);

/** prepareRateLimit validates adapter options and returns the plan; `extra` lists adapter-only option names. */
export function prepareRateLimit<Req>(owner: string, options: RateLimitOptions<Req> | undefined, extra: readonly string[] = []): RateLimitPlan<Req> {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new TypeError(`${owner}: options must be an object, got ${describeValue(options)}`);
  }
  const o: RateLimitOptions<Req> = options ?? {};
  refuseUnknown(owner, o, KNOWN, extra);
  const key = optionalFunction(owner, 'key', o.key);
  const cost = optionalFunction(owner, 'cost', o.cost);
  const skip = optionalFunction(owner, 'skip', o.skip);
  const onDecision = optionalFunction(owner, 'onDecision', o.onDecision);
  // Only a missing option takes the default: null is refused like any other wrong value.
  const style = checkHeaderStyle(owner, o.headers === undefined ? 'draft-10' : o.headers);
  const subnet = checkIpv6Subnet(owner, o.ipv6Subnet === undefined ? DEFAULT_IPV6_SUBNET : o.ipv6Subnet);
  const missingIp = o.missingIp === undefined ? 'reject' : o.missingIp;
  if (missingIp !== 'reject' && missingIp !== 'skip') throw new TypeError(`${owner}: missingIp must be 'reject' or 'skip', got ${describeValue(missingIp)}`);
  if (o.shadow !== undefined && typeof o.shadow !== 'boolean') throw new TypeError(`${owner}: shadow must be a boolean, got ${describeValue(o.shadow)}`);
  const shadow = o.shadow === true;
  const telemetry = o.telemetry === undefined ? undefined : checkTelemetry(owner, o.telemetry);
  if (o.proxyWarning !== undefined && typeof o.proxyWarning !== 'boolean') throw new TypeError(`${owner}: proxyWarning must be a boolean, got ${describeValue(o.proxyWarning)}`);
  const watchesProxy = o.proxyWarning !== false && key === undefined;
  const limiter = chooseLimiter(owner, o);
  // The limiter's own policies are checked here, once: per request, a decision naming one of them is
  // then one identity test (decision-check.ts), and the RateLimit-Policy value below is header-safe.
  const bad = policiesProblem(limiter.policies);
  if (bad !== undefined) throw new TypeError(`${owner}: limiter ${bad}`);
  const policy = policyField(limiter.policies);
  const allowList = o.allowList === undefined ? undefined : new IpList(o.allowList, owner, 'allowList');
  const denyList = o.denyList === undefined ? undefined : new IpList(o.denyList, owner, 'denyList');

  return {
    limiter,
    decide: decider(owner, limiter, { key, cost, skip, onDecision, subnet, missingIp, telemetry, shadow, allowList, denyList }),
    blocks: (decision) => !decision.allowed && !shadow,
    writeHeaders(res, set, decision) {
      if (decision.forbidden === true) return;
      const blocked = !decision.allowed && !shadow;
      if (style !== false || blocked) writeHeaders(res, set, decision, style, policy, blocked);
    },
    watchProxy: (setting) => new ProxyWarning(owner, setting, watchesProxy),
  };
}

function optionalFunction<F>(owner: string, name: string, value: F | undefined): F | undefined {
  if (value !== undefined && typeof value !== 'function') throw new TypeError(`${owner}: ${name} must be a function, got ${describeValue(value)}`);
  return value;
}
