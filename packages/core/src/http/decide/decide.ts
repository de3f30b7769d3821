/**
 * decider builds the prepared options' `decide(req, ip)`: lists, skip, key, cost, plan, consume, check, report, in
 * that order.
 *
 * - `denyList` / `allowList` are matched against the client IP the framework resolved, before anything
 *   else: an address on the deny list gets the prepared options' one frozen `forbidden` Decision (403, nothing
 *   counted, not reported); one on the allow list passes uncounted, like a skip. Deny wins over allow.
 * - `skip`, `key`, `cost` and `plan` may answer synchronously or with a promise. The synchronous answers
 *   take the synchronous path, which creates no promise and no closure. The first hook that answers
 *   with a thenable hands the rest of the request to `resume`, an async function that awaits that
 *   answer and every later hook; each hook still runs once, in the same order. A rejection rejects
 *   decide, uncounted.
 * - On that async path, a request whose client went away while a hook was being awaited is not
 *   counted: after the last await and before consume, decide asks the adapter's `gone(req)` and
 *   resolves to `null` instead (the adapter then does nothing more: there is nobody to answer).
 * - `skip` answers true to skip; false, undefined or null count the request (a hook written as
 *   `if (x) return true` means "count" otherwise). Any other answer (`1`, `'yes'`, an object: meant as
 *   "skip", it would be counted silently), a key that is not a string and a cost that is not a positive
 *   integer are the caller's bug: a TypeError / RangeError naming the hook and the value. `plan(req)` must name one of the
 *   plans (plans.ts).
 * - `key(req, client)` is handed the default key as `client` (the client IP's key, undefined when it
 *   has no usable IP), so a key can scope the client (a route key: route-key.ts) without reading the
 *   address itself; a key that throws (or rejects with) a MissingIpError is a request without a
 *   usable IP, like the default key's.
 * - No usable IP for the default key: MissingIpError, or uncounted with missingIp: 'skip'.
 * - The limiter failing in any way (consume throwing, its promise rejecting, or an answer that is not
 *   a Decision, see decision-check.ts) is one RateLimiterError whose cause is the original.
 * - `telemetry` (when given) sees every valid Decision, with the store's time for a remote one; an
 *   observer's error never reaches the request.
 * - `onDecision` runs with every valid Decision; a promise it returns is waited for and its rejection
 *   rejects decide.
 * - With `charges` (countOutcome or settle given), what each request was charged is remembered for
 *   the response's end (settle.ts); nothing is recorded otherwise. An admitted request whose
 *   `onDecision` throws or rejects never reaches the adapter, so a lease it took is released here.
 * Every error is thrown from decide (sync) or rejects its promise, for the adapter to hand to the
 * framework's error path; decide itself never leaves a rejection unobserved.
 */
import type { Decision } from '../../decision.js';
import type { RateLimiter } from '../../limiter/limiter.js';
import { type Telemetry, outcomeOf } from '../../telemetry.js';
import { describeValue, fail, isCost } from '../../validate.js';
import { decisionProblem } from './decision-check.js';
import { MissingIpError, RateLimiterError } from './errors.js';
import { ipKey } from '../client/ip.js';
import type { IpList } from '../client/ip-list.js';
import type { Charge } from '../settle/settle.js';
import { type ClientSocket, delayed } from './delay.js';
import { isThenable } from './thenable.js';

/** Decided: what decide answers once its hooks settled: a Decision, undefined (skipped: pass on uncounted), or null (client gone: do nothing). */
export type Decided = Decision | undefined | null;

export type Hook<Req, T> = ((req: Req) => T | PromiseLike<T>) | undefined;

/** KeyHook: `key(req, client)`, where `client` is the default key (the client IP's, undefined without one). */
export type KeyHook<Req> = ((req: Req, client: string | undefined) => string | PromiseLike<string>) | undefined;

export interface Hooks<Req> {
  readonly skip: Hook<Req, boolean>;
  readonly key: KeyHook<Req>;
  readonly cost: Hook<Req, number>;
  /** Chooses the limiter by name (plans); undefined when one limiter serves every request. */
  readonly plan: Hook<Req, string>;
  readonly onDecision: ((decision: Decision, req: Req) => void) | undefined;
  readonly subnet: number;
  readonly missingIp: 'reject' | 'skip';
  readonly telemetry: Telemetry | undefined;
  readonly shadow: boolean;
  /** The adapter's test for a client that went away (checked only after an await). */
  readonly gone: ((req: Req) => boolean) | undefined;
  /** Delay mode's bound in ms (delay.ts); undefined in the default mode. */
  readonly delay: number | undefined;
  /** The client's connection, watched while a delayed request waits (undefined: not watched). */
  readonly socket: ((req: Req) => ClientSocket | undefined) | undefined;
  /** Where each charge is remembered for the response's end; undefined when off. */
  readonly charges: WeakMap<object, Charge> | undefined;
  readonly allowList: IpList | undefined;
  readonly denyList: IpList | undefined;
}

/**
 * Decide is the prepared options' decision for one request and the client IP the framework resolved: a Decision on
 * the synchronous path, a promise of what it `Decided` once a hook answered with a promise, or undefined
 * for a request that passes uncounted (skipped, or on the allow list).
 */
export type Decide<Req> = (req: Req, ip: string | undefined) => Decision | Promise<Decided> | undefined;

const SKIP = 0;
const KEY = 1;
const COST = 2;
const PLAN = 3;
type Stage = typeof SKIP | typeof KEY | typeof COST | typeof PLAN;

/** decider builds decide over one limiter, or over the limiter `pick(plan(req))` names. */
export function decider<Req>(owner: string, limiter: RateLimiter, pick: (name: unknown) => RateLimiter, hooks: Hooks<Req>): Decide<Req> {
  const { key, cost, skip, plan, onDecision, subnet, missingIp, telemetry, shadow, gone, charges, allowList, denyList, delay, socket } = hooks;
  const forbidden = forbiddenDecision(limiter);
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
  const charge = (l: RateLimiter, req: Req, k: string, c: number): Decision | Promise<Decision | null> => {
    let result: unknown;
    try {
      result = delay === undefined ? l.consume(k, c) : delayed(l, k, c, delay, socket?.(req));
    } catch (error) {
      throw new RateLimiterError(owner, error);
    }
    if (charges !== undefined) charges.set(req as object, { limiter: l, key: k, cost: c });
    if (isThenable(result)) {
      const policies = l.policies;
      const started = telemetry === undefined ? 0 : performance.now();
      // null: a delayed request whose client went away (delay.ts); only delay mode answers it.
      let decided: Promise<Decision | null> = Promise.resolve(result).then((value) => (value === null && delay !== undefined ? null : verify(value, policies)), failed);
      // In delay mode the time to the answer includes the hold, which is not the store's time: none is reported.
      if (telemetry !== undefined) decided = decided.then((d) => (d !== null && observe(telemetry, d, shadow, delay === undefined ? performance.now() - started : undefined), d));
      return report === undefined ? decided : decided.then((d) => (d === null ? null : reported(l, req, k, c, d)));
    }
    const decision = verify(result, l.policies);
    if (telemetry !== undefined) observe(telemetry, decision, shadow, undefined);
    return report === undefined ? decision : reported(l, req, k, c, decision);
  };
  /** reported runs onDecision; when it fails, an admitted request's lease goes back before the error goes on. */
  const reported = (l: RateLimiter, req: Req, k: string, c: number, decision: Decision): Decision | Promise<Decision> => {
    const release = l.release;
    if (release === undefined || !decision.allowed) return (report as NonNullable<typeof report>)(decision, req);
    const unlease = (error: unknown): never => {
      charges?.delete(req as object);
      void Promise.resolve(release.call(l, k, c)).then(undefined, () => {});
      throw error;
    };
    let done: Decision | Promise<Decision>;
    try {
      done = (report as NonNullable<typeof report>)(decision, req);
    } catch (error) {
      return unlease(error);
    }
    return done instanceof Promise ? done.then(undefined, unlease) : done;
  };
  /** verify passes a limiter's answer that is a Decision of its own policies, or throws (decision-check.ts). */
  const verify = (value: unknown, policies: RateLimiter['policies']): Decision => {
    const problem = decisionProblem(value, policies);
    if (problem !== undefined) throw new RateLimiterError(owner, new TypeError(problem));
    return value as Decision;
  };
  /** skipped reads skip's answer: true skips, false / undefined / null count, anything else is the caller's bug. */
  const skipped = (answer: unknown): boolean => {
    if (typeof answer !== 'boolean' && answer != null) throw new TypeError(`${owner}: skip(req) must return a boolean, got ${describeValue(answer)}`);
    return answer === true;
  };
  const keyed = (k: unknown): string => {
    if (typeof k !== 'string') throw new TypeError(`${owner}: key(req) must return a string, got ${describeValue(k)}`);
    return k;
  };
  const costed = (c: unknown): number => {
    if (!isCost(c)) fail(owner, 'cost(req)', 'a positive integer', c, 'number');
    return c as number;
  };
  let lastIp: string | undefined;
  let lastKey: string | undefined;
  const keyOfIp = (ip: string | undefined): string | undefined => {
    if (ip === lastIp) return lastKey; // a keep-alive connection repeats its IP: ipKey is pure, so reuse it
    return (lastKey = ipKey((lastIp = ip), subnet));
  };
  const noIp = (): undefined => {
    if (missingIp === 'skip') return undefined;
    throw new MissingIpError(owner);
  };

  /** resume finishes a request from `stage`, whose hook answered with `pending`, awaiting every later hook. */
  async function resume(req: Req, ip: string | undefined, stage: Stage, pending: PromiseLike<unknown>, k?: string, c = 1): Promise<Decided> {
    if (stage === SKIP && skipped(await pending)) return undefined;
    if (stage <= KEY) {
      if (key !== undefined) {
        try {
          k = keyed(stage === KEY ? await pending : await key(req, keyOfIp(ip)));
        } catch (error) {
          if (error instanceof MissingIpError) return noIp();
          throw error;
        }
      } else if ((k = keyOfIp(ip)) === undefined) return noIp();
    }
    if (stage <= COST && cost !== undefined) c = costed(stage === COST ? await pending : await cost(req));
    let l = limiter;
    if (plan !== undefined) l = pick(stage === PLAN ? await pending : await plan(req));
    if (gone !== undefined && gone(req)) return null;
    return charge(l, req, k as string, c);
  }

  return function decide(req, ip) {
    if (denyList !== undefined && denyList.has(ip)) return forbidden;
    if (allowList !== undefined && allowList.has(ip)) return undefined;
    if (skip !== undefined) {
      const answer = skip(req);
      if (answer === true) return undefined;
      if (isThenable(answer)) return resume(req, ip, SKIP, answer);
      skipped(answer);
    }
    let k: string | undefined;
    if (key !== undefined) {
      let got: string | PromiseLike<string>;
      try {
        got = key(req, keyOfIp(ip));
      } catch (error) {
        if (error instanceof MissingIpError) return noIp();
        throw error;
      }
      if (isThenable(got)) return resume(req, ip, KEY, got);
      k = keyed(got);
    } else if ((k = keyOfIp(ip)) === undefined) return noIp();
    let c = 1;
    if (cost !== undefined) {
      const got = cost(req);
      if (isThenable(got)) return resume(req, ip, COST, got, k);
      c = costed(got);
    }
    if (plan === undefined) return charge(limiter, req, k, c);
    const name = plan(req);
    if (isThenable(name)) return resume(req, ip, PLAN, name, k, c);
    return charge(pick(name), req, k, c);
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
