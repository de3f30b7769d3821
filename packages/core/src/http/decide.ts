/**
 * decider builds a plan's `decide(req, ip)`: lists, skip, key, consume, check, report, in that order.
 *
 * - `denyList` / `allowList` are matched against the client IP the framework resolved, before anything
 *   else: an address on the deny list gets the plan's one frozen `forbidden` Decision (403, nothing
 *   counted, not reported); one on the allow list passes uncounted, like a skip. Deny wins over allow.
 * - `skip`, `key` and `cost` must answer synchronously: a promise from one is a TypeError (marked
 *   handled first, so its rejection can never be an unhandled one). A key that is not a string and a
 *   cost that is not a positive integer are the caller's bug: a TypeError / RangeError naming the hook.
 * - No usable IP for the default key: MissingIpError, or uncounted with missingIp: 'skip'.
 * - The limiter failing in any way (consume throwing, its promise rejecting, or an answer that is not
 *   a Decision, see decision-check.ts) is one RateLimiterError whose cause is the original.
 * - `telemetry` (when given) sees every valid Decision, with the store's time for a remote one; an
 *   observer's error never reaches the request.
 * - `onDecision` runs with every valid Decision; a promise it returns is waited for and its rejection
 *   rejects decide.
 * Every error is thrown from decide (sync) or rejects its promise, for the adapter to hand to the
 * framework's error path; decide itself never leaves a rejection unobserved.
 */
import type { Decision } from '../decision.js';
import type { RateLimiter } from '../limiter.js';
import { type Telemetry, outcomeOf } from '../telemetry.js';
import { describeValue, fail, isCost } from '../validate.js';
import { decisionProblem } from './decision-check.js';
import { MissingIpError, RateLimiterError } from './errors.js';
import { ipKey } from './ip.js';
import type { IpList } from './ip-list.js';
import type { RateLimitOptions, RateLimitPlan } from './plan.js';

export type Hooks<Req> = { readonly [K in 'key' | 'cost' | 'skip' | 'onDecision']: RateLimitOptions<Req>[K] | undefined } & {
  readonly subnet: number;
  readonly missingIp: 'reject' | 'skip';
  readonly telemetry: Telemetry | undefined;
  readonly shadow: boolean;
  readonly allowList: IpList | undefined;
  readonly denyList: IpList | undefined;
};

export function decider<Req>(owner: string, limiter: RateLimiter, hooks: Hooks<Req>): RateLimitPlan<Req>['decide'] {
  const { key, cost, skip, onDecision, subnet, missingIp, telemetry, shadow, allowList, denyList } = hooks;
  const own = limiter.policies;
  const forbidden = forbiddenDecision(limiter);
  const checked = (value: unknown): Decision => {
    const problem = decisionProblem(value, own);
    if (problem !== undefined) throw new RateLimiterError(owner, new TypeError(problem));
    return value as Decision;
  };
  const failed = (error: unknown): never => {
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
    if (denyList !== undefined && denyList.has(ip)) return forbidden;
    if (allowList !== undefined && allowList.has(ip)) return undefined;
    if (skip !== undefined && synchronous(owner, 'skip(req)', 'a boolean', skip(req)) === true) return undefined;
    let k: string | undefined;
    if (key !== undefined) {
      k = synchronous(owner, 'key(req)', 'a string', key(req));
      if (typeof k !== 'string') throw new TypeError(`${owner}: key(req) must return a string, got ${describeValue(k)}`);
    } else if (ip === lastIp) k = lastKey; // a keep-alive connection repeats its IP: ipKey is pure, so reuse it
    else k = lastKey = ipKey((lastIp = ip), subnet);
    if (k === undefined) {
      if (missingIp === 'skip') return undefined;
      throw new MissingIpError(owner);
    }
    let units = 1;
    if (cost !== undefined) {
      units = synchronous(owner, 'cost(req)', 'a positive integer', cost(req));
      if (!isCost(units)) fail(owner, 'cost(req)', 'a positive integer', units, 'number');
    }
    let result: unknown;
    try {
      result = limiter.consume(k, units);
    } catch (error) {
      throw new RateLimiterError(owner, error);
    }
    if (isThenable(result)) {
      const started = telemetry === undefined ? 0 : performance.now();
      let decided = Promise.resolve(result).then(checked, failed);
      if (telemetry !== undefined) decided = decided.then((d) => (observe(telemetry, d, shadow, performance.now() - started), d));
      return report === undefined ? decided : decided.then((d) => report(d, req));
    }
    const decision = checked(result);
    if (telemetry !== undefined) observe(telemetry, decision, shadow, undefined);
    return report === undefined ? decision : report(decision, req);
  };
}

/** forbiddenDecision is the answer to a denied address: no wait can help, nothing was counted. */
function forbiddenDecision(limiter: RateLimiter): Decision {
  const policy = limiter.policies[0] as Decision['policy'];
  return Object.freeze({ allowed: false, limit: policy.limit, remaining: 0, retryAfterMs: Infinity, resetAfterMs: 0, policy, forbidden: true });
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

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}
