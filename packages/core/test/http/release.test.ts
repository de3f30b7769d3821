/**
 * Leases through the plan: a limiter with `release` gets every admitted request's lease released
 * exactly once when its response is over (completed, failed, aborted, or already closed when handed
 * over), also with countOutcome; never for a denied request; at once when onDecision fails after an
 * admission. Limiters without release keep no watch (nothing recorded). settle, and countOutcome on a
 * limiter holding only leases, are refused at creation. A watcher on 'finish' alone (it never fires on
 * an aborted response) is caught by the same check. Also the RateLimit-Policy item and the shorthand.
 */
import type { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CompositeLimiter, ConcurrencyLimiter, type Decision, FixedWindowLimiter, ManualClock, type RateLimiter } from '../../src/index.js';
import { chooseLimiter, policyField, prepareRateLimit, type NodeResponse } from '../../src/adapter.js';
import type { PreparedRateLimit } from '../../src/adapter.js';
import { refundsLeases } from '../mutants/refunds-leases.js';
import { fakeResponse } from './support.js';

type Req = { readonly id: string };

const response = fakeResponse;

/** finishOnly is the mutant watch: it releases on 'finish', which an aborted response never emits. */
function finishOnly(plan: PreparedRateLimit<Req>): PreparedRateLimit<Req> {
  const watch: PreparedRateLimit<Req>['watch'] = (req, res, decision) => {
    const emitter = res as unknown as EventEmitter;
    const once = emitter.once;
    emitter.once = ((event: string, fn: () => void) => once.call(emitter, event === 'close' ? 'finish' : event, fn)) as never;
    const work = plan.watch?.(req, res, decision);
    emitter.once = once;
    return work;
  };
  return { ...plan, watch };
}

/** ignoresClosed is the mutant watch that never reads `closed`: a response closed before the decision arrived waits forever for its 'close'. */
function ignoresClosed(plan: PreparedRateLimit<Req>): PreparedRateLimit<Req> {
  const watch: PreparedRateLimit<Req>['watch'] = (req, res, decision) => {
    const blind = {
      once: res.once.bind(res),
      get statusCode() {
        return res.statusCode;
      },
      get headersSent() {
        return res.headersSent;
      },
      get writableFinished() {
        return res.writableFinished;
      },
      getHeader: res.getHeader.bind(res),
      write: res.write,
      end: res.end,
    };
    return plan.watch?.(req, blind as NodeResponse, decision);
  };
  return { ...plan, watch };
}

/** inFlight plays requests that end as `ends` says ('twice': the charge claimed again after the close) and returns the leases still held after each. */
function inFlight(limiter: RateLimiter<'sync'>, ends: readonly ('finish' | 'abort' | 'closed' | 'twice')[], wrap = (p: PreparedRateLimit<Req>) => p) {
  const plan = wrap(prepareRateLimit<Req>('rateLimit', { limiter, key: (r: Req) => r.id }));
  const held: number[] = [];
  for (const end of ends) {
    const req = { id: 'a' };
    const decision = plan.decide(req, undefined) as Decision;
    const r = response();
    if (end === 'closed') r.leave();
    plan.watch!(req, r.res, decision);
    if (end === 'closed') r.answer(); // its handler runs, for a client already gone
    if (end === 'finish' || end === 'twice') r.finish();
    if (end === 'abort') r.abort();
    if (end === 'twice') expect(plan.claim!(req, decision), 'a second claim').toBeUndefined();
    const left = limiter.peek('a');
    held.push(left.limit - left.remaining - (left.allowed ? 1 : 0));
  }
  return held;
}

/**
 * overlapping: with countOutcome on a composite (5 per minute, 2 in flight), one request stays in flight
 * while a second ends with a 500 that does not count; answers the leases then held and the rate left.
 */
async function overlapping(wrap: (c: CompositeLimiter) => RateLimiter<'sync'>) {
  const clock = new ManualClock(0);
  const rate = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, name: 'rate', clock });
  const inflight = new ConcurrencyLimiter({ limit: 2, name: 'inflight', clock });
  const plan = prepareRateLimit<Req>('rateLimit', { limiter: wrap(new CompositeLimiter([rate, inflight])), key: (r: Req) => r.id, countOutcome: (o) => o.status < 400 });
  const first = { id: 'a' };
  plan.watch!(first, response().res, plan.decide(first, undefined) as Decision); // never closes: in flight
  const second = { id: 'a' };
  const decision = plan.decide(second, undefined) as Decision;
  expect(decision.allowed).toBe(true);
  const r = response();
  (r.res as unknown as { statusCode: number }).statusCode = 500;
  plan.watch!(second, r.res, decision);
  r.finish();
  await new Promise(setImmediate);
  const left = inflight.peek('a');
  return { held: left.limit - left.remaining - (left.allowed ? 1 : 0), rateLeft: rate.peek('a').remaining + 1 };
}

describe('releasing leases after the response', () => {
  it('releases once per admitted request: completed, aborted, already closed, or claimed again', () => {
    expect(inFlight(new ConcurrencyLimiter({ limit: 2 }), ['finish', 'abort', 'closed', 'twice', 'finish'])).toEqual([0, 0, 0, 0, 0]);
  });

  it('the check catches a watch that releases on finish only (mutant)', () => {
    expect(inFlight(new ConcurrencyLimiter({ limit: 2 }), ['finish', 'abort', 'finish', 'abort'], finishOnly)).toEqual([0, 1, 1, 2]);
  });

  it('the check catches a watch that waits for the close of a response already closed (mutant)', () => {
    expect(inFlight(new ConcurrencyLimiter({ limit: 2 }), ['finish', 'closed', 'closed'], ignoresClosed)).toEqual([0, 1, 2]);
  });

  it('never releases for a denied request: the leases of the requests in flight stay held', () => {
    const limiter = new ConcurrencyLimiter({ limit: 1 });
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: (r: Req) => r.id });
    const first = { id: 'a' };
    const admitted = plan.decide(first, undefined) as Decision;
    const open = response();
    plan.watch!(first, open.res, admitted);
    const second = { id: 'a' };
    const denied = plan.decide(second, undefined) as Decision;
    expect(denied.allowed).toBe(false);
    const r = response();
    plan.watch!(second, r.res, denied);
    r.finish();
    expect(plan.claim!(second, denied)).toBeUndefined();
    expect(limiter.peek('a').allowed).toBe(false);
    open.abort();
    expect(limiter.peek('a').allowed).toBe(true);
  });

  it('releases the lease when onDecision throws after an admission (the adapter never sees the decision)', () => {
    const limiter = new ConcurrencyLimiter({ limit: 1 });
    const plan = prepareRateLimit<Req>('rateLimit', {
      limiter,
      key: (r: Req) => r.id,
      onDecision: () => {
        throw new Error('logger down');
      },
    });
    expect(() => plan.decide({ id: 'a' }, undefined)).toThrow('logger down');
    expect(limiter.peek('a').allowed).toBe(true);
  });

  it('releases the lease when an async onDecision rejects after an admission', async () => {
    const limiter = new ConcurrencyLimiter({ limit: 1 });
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: (r: Req) => r.id, onDecision: () => Promise.reject(new Error('logger down')) as never });
    await expect(plan.decide({ id: 'a' }, undefined)).rejects.toThrow('logger down');
    expect(limiter.peek('a').allowed).toBe(true);
  });

  it('with countOutcome on a composite: the lease is released and the rate alone is given back', async () => {
    const clock = new ManualClock(0);
    const rate = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, name: 'rate', clock });
    const inflight = new ConcurrencyLimiter({ limit: 1, name: 'inflight', clock });
    const plan = prepareRateLimit<Req>('rateLimit', { limiter: new CompositeLimiter([rate, inflight]), key: (r: Req) => r.id, countOutcome: (o) => o.status < 400 });
    for (const status of [200, 500, 200]) {
      const req = { id: 'a' };
      const decision = plan.decide(req, undefined) as Decision;
      expect(decision.allowed).toBe(true);
      const r = response();
      (r.res as unknown as { statusCode: number }).statusCode = status;
      plan.watch!(req, r.res, decision);
      r.finish();
      await new Promise(setImmediate);
    }
    expect(inflight.peek('a').remaining).toBe(0);
    expect(rate.peek('a').remaining).toBe(5 - 2 - 1);
  });

  it('with countOutcome on a composite, a request that does not count returns its own lease only: the one still in flight stays held', async () => {
    expect(await overlapping((c) => c)).toEqual({ held: 1, rateLeft: 4 });
  });

  it('the overlapping check catches a composite whose refund also returns leases (mutant)', async () => {
    expect(await overlapping(refundsLeases)).toEqual({ held: 0, rateLeft: 4 });
  });

  it('keeps no watch for limiters without release', () => {
    const plan = prepareRateLimit<Req>('rateLimit', { limiter: new FixedWindowLimiter({ limit: 1, windowMs: 1000 }) });
    expect([plan.watch, plan.claim]).toEqual([undefined, undefined]);
  });

  it('refuses settle on a limiter holding leases, and countOutcome on one holding only leases', () => {
    const inflight = new ConcurrencyLimiter({ limit: 1 });
    expect(() => prepareRateLimit<Req>('rateLimit', { limiter: inflight, settle: () => 1 })).toThrowError(
      new TypeError('rateLimit: settle cannot charge extra on a limiter that holds leases; limiter does'),
    );
    expect(() => prepareRateLimit<Req>('rateLimit', { limiter: inflight, countOutcome: () => true })).toThrowError(
      new TypeError('rateLimit: countOutcome has nothing to give back on limiter: it holds only leases, which are released when the response ends'),
    );
  });
});

describe('headers and shorthand', () => {
  it('writes the policy with qu="concurrent-requests" and no window', () => {
    const inflight = new ConcurrencyLimiter({ limit: 10, name: 'inflight' });
    expect(policyField(inflight.policies)).toBe('"inflight";q=10;qu="concurrent-requests"');
    const both = new CompositeLimiter([new FixedWindowLimiter({ limit: 100, windowMs: 60_000, name: 'minute' }), inflight]);
    expect(policyField(both.policies)).toBe('"minute";q=100;w=60, "inflight";q=10;qu="concurrent-requests"');
  });

  it("builds a ConcurrencyLimiter from algorithm: 'concurrency' with working defaults", () => {
    const limiter = chooseLimiter('rateLimit', { algorithm: 'concurrency' });
    expect(limiter).toBeInstanceOf(ConcurrencyLimiter);
    expect(limiter.policies[0]).toMatchObject({ algorithm: 'concurrency', limit: 10, retryAfterMs: 1000 });
    expect(chooseLimiter('rateLimit', { algorithm: 'concurrency', limit: 3, retryAfterMs: 200 }).policies[0]).toMatchObject({ limit: 3, retryAfterMs: 200 });
    // @ts-expect-error windowMs is no 'concurrency' option: the type refuses it as run time does
    expect(() => chooseLimiter('rateLimit', { algorithm: 'concurrency', windowMs: 1000 })).toThrow("rateLimit: windowMs does not apply to algorithm 'concurrency'");
    // @ts-expect-error retryAfterMs is no 'fixed-window' option
    expect(() => chooseLimiter('rateLimit', { algorithm: 'fixed-window', retryAfterMs: 1000 })).toThrow("rateLimit: retryAfterMs does not apply to algorithm 'fixed-window'");
    const plan = prepareRateLimit<Req>('rateLimit', { algorithm: 'concurrency', limit: 2 });
    expect(typeof plan.watch).toBe('function');
  });
});

describe('releasing through claim (Web responses)', () => {
  it("releases once when the claim's Settle is called, however often, and a second claim gets nothing", async () => {
    const limiter = new ConcurrencyLimiter({ limit: 1 });
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: (r: Req) => r.id });
    const req = { id: 'a' };
    const decision = plan.decide(req, undefined) as Decision;
    const settle = plan.claim!(req, decision)!;
    expect(plan.claim!(req, decision)).toBeUndefined();
    expect(limiter.peek('a').allowed).toBe(false);
    settle({ status: 200, aborted: true, contentLength: undefined });
    expect(limiter.peek('a').allowed).toBe(true);
    expect(limiter.allow('a')).toBe(true);
    settle({ status: 200, aborted: true, contentLength: undefined });
    expect(limiter.peek('a').allowed, 'a second Settle released the next request').toBe(false);
  });
});
