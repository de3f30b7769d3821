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
 * decide. A limiter whose promise rejects (a store that broke its never-reject contract) surfaces as a
 * RateLimiterError without the store's message, so no error text can reach a client even through a
 * framework's development error page.
 * `shadow: true` decides, writes headers and reports, but never blocks.
 */
import type { Decision } from '../decision.js';
import type { RateLimiter } from '../limiter.js';
import { type Telemetry, checkTelemetry, outcomeOf } from '../telemetry.js';
import { describeValue, refuseUnknown } from '../validate.js';
import { type HeaderSetter, type HeaderStyle, checkHeaderStyle, policyField, writeHeaders } from './headers.js';
import { DEFAULT_IPV6_SUBNET, checkIpv6Subnet, ipKey } from './ip.js';
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
}

export class MissingIpError extends Error {
  readonly status = 500;
  readonly statusCode = 500;
  constructor(owner: string) {
    super(`${owner}: the request has no usable client IP; check the framework's trust-proxy setting, give a key function, or set missingIp: 'skip'`);
    this.name = 'MissingIpError';
  }
}

export class RateLimiterError extends Error {
  readonly status = 500;
  readonly statusCode = 500;
  constructor(owner: string, cause: unknown) {
    super(`${owner}: the limiter failed to decide`, { cause });
    this.name = 'RateLimiterError';
  }
}

export interface RateLimitPlan<Req> {
  readonly limiter: RateLimiter;
  decide(req: Req, ip: string | undefined): Decision | Promise<Decision> | undefined;
  blocks(decision: Decision): boolean;
  writeHeaders<Res>(res: Res, set: HeaderSetter<Res>, decision: Decision): void;
}

const KNOWN = new Set(['limiter', 'algorithm', 'capacity', 'refillPerSecond', 'limit', 'windowMs', 'name', 'store', 'clock', 'key', 'cost', 'skip', 'headers', 'ipv6Subnet', 'missingIp', 'shadow', 'onDecision', 'telemetry']);

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
  const limiter = chooseLimiter(owner, o);
  const policy = policyField(limiter.policies);

  return {
    limiter,
    decide: decider(owner, limiter, { key, cost, skip, onDecision, subnet, missingIp, telemetry, shadow }),
    blocks: (decision) => !decision.allowed && !shadow,
    writeHeaders(res, set, decision) {
      const blocked = !decision.allowed && !shadow;
      if (style !== false || blocked) writeHeaders(res, set, decision, style, policy, blocked);
    },
  };
}

type Hooks<Req> = { readonly [K in 'key' | 'cost' | 'skip' | 'onDecision']: RateLimitOptions<Req>[K] | undefined } & {
  readonly subnet: number;
  readonly missingIp: 'reject' | 'skip';
  readonly telemetry: Telemetry | undefined;
  readonly shadow: boolean;
};

/** decider builds the plan's decide: skip, key, consume, report, in that order. */
function decider<Req>(owner: string, limiter: RateLimiter, hooks: Hooks<Req>): RateLimitPlan<Req>['decide'] {
  const { key, cost, skip, onDecision, subnet, missingIp, telemetry, shadow } = hooks;
  const fail = (error: unknown): never => {
    throw new RateLimiterError(owner, error);
  };
  const report =
    onDecision === undefined
      ? undefined
      : (decision: Decision, req: Req): Decision | Promise<Decision> => {
          const done: unknown = onDecision(decision, req);
          return isThenable(done) ? Promise.resolve(done).then(() => decision) : decision;
        };
  let lastIp: string | undefined;
  let lastKey: string | undefined;
  return function decide(req, ip) {
    if (skip !== undefined && synchronous(owner, 'skip(req)', 'a boolean', skip(req)) === true) return undefined;
    let k: string | undefined;
    if (key !== undefined) k = synchronous(owner, 'key(req)', 'a string', key(req));
    else if (ip === lastIp) k = lastKey; // a keep-alive connection repeats its IP: ipKey is pure, so reuse it
    else k = lastKey = ipKey((lastIp = ip), subnet);
    if (k === undefined) {
      if (key !== undefined) throw new TypeError(`${owner}: key(req) must return a string, got undefined`);
      if (missingIp === 'skip') return undefined;
      throw new MissingIpError(owner);
    }
    const result = limiter.consume(k, cost === undefined ? 1 : synchronous(owner, 'cost(req)', 'a positive integer', cost(req)));
    if (result instanceof Promise) {
      const decided = telemetry === undefined ? result.catch(fail) : observed(result.catch(fail), telemetry, shadow);
      return report === undefined ? decided : decided.then((d) => report(d, req));
    }
    if (telemetry !== undefined) observe(telemetry, result, shadow, undefined);
    return report === undefined ? result : report(result, req);
  };
}

/** observed reports a remote decision with the time its store took. */
function observed(decision: Promise<Decision>, telemetry: Telemetry, shadow: boolean): Promise<Decision> {
  const started = performance.now();
  return decision.then((d) => {
    observe(telemetry, d, shadow, performance.now() - started);
    return d;
  });
}

/** observe hands one decision to the telemetry; an observer's error never reaches the request. */
function observe(telemetry: Telemetry, decision: Decision, shadow: boolean, storeMs: number | undefined): void {
  try {
    telemetry.decided(decision, outcomeOf(decision, shadow), storeMs);
  } catch {
    // Reporting must never change or lose a response.
  }
}

/**
 * synchronous passes a hook's answer through but refuses a promise: decide cannot wait for an async
 * key, cost or skip, and reading the promise as "not skipped" would count a request the caller meant
 * to let through. The promise is marked handled first, so that its rejection cannot crash the process.
 */
function synchronous<T>(owner: string, hook: string, want: string, value: T): T {
  if (isThenable(value)) {
    value.then(undefined, () => undefined);
    throw new TypeError(`${owner}: ${hook} must return ${want}, got a promise`);
  }
  return value;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

function optionalFunction<F>(owner: string, name: string, value: F | undefined): F | undefined {
  if (value !== undefined && typeof value !== 'function') throw new TypeError(`${owner}: ${name} must be a function, got ${describeValue(value)}`);
  return value;
}
