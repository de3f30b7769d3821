/**
 * countOutcome and settle: checked at creation (functions; limiters that can refund); off by default
 * (no watch, nothing recorded); once the work is over, an uncounted outcome gives the whole charge
 * back, settle adjusts it to the real cost (refund below, charge above, drain to empty when the extra
 * does not fit), once per request even though 'finish' precedes 'close' (a watcher listening to both
 * settles twice: mutant); an aborted request is judged by its handler's answer; claim gives one Settle per admitted request, acting once; a denied request
 * is not watched; a hook failing after the response is a process warning, never an exception.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Decision, FixedWindowLimiter, ManualClock } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { doubleSettleWatch } from './mutants.js';
import { fakeResponse } from './support.js';

type Req = { readonly id: string };
const T0 = 1_700_000_000_000;
const windowOf = (limit: number) => new FixedWindowLimiter({ limit, windowMs: 60_000, name: 'w', clock: new ManualClock(T0) });

const response = fakeResponse;

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('at creation', () => {
  it('is off by default: no watch', () => {
    expect(prepareRateLimit<Req>('rateLimit', { limiter: windowOf(1) }).watch).toBeUndefined();
  });

  it('refuses a non-function, and a limiter that cannot refund', () => {
    expect(() => prepareRateLimit<Req>('rateLimit', { settle: 5 as never })).toThrowError(new TypeError('rateLimit: settle must be a function, got 5'));
    const noRefund = { mode: 'sync', consume: () => undefined as never, policies: windowOf(1).policies };
    expect(() => prepareRateLimit<Req>('rateLimit', { limiter: noRefund as never, countOutcome: () => true })).toThrowError(
      new TypeError('rateLimit: countOutcome and settle need limiters with refund(); limiter has none'),
    );
  });
});

describe('after the response', () => {
  afterEach(() => void vi.restoreAllMocks());

  /** run sends one request through `plan`, ends its response with `end`, and answers what remains. */
  async function run(options: object, end: (r: ReturnType<typeof response>) => void, status = 200, length?: number, limit = 10) {
    const limiter = windowOf(limit);
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: (r: Req) => r.id, ...options });
    const req = { id: 'a' };
    const decision = plan.decide(req, undefined) as Decision;
    const r = response(status, length);
    plan.watch?.(req, r.res, decision);
    end(r);
    await flush();
    const left = limiter.peek('a');
    return left.allowed ? left.remaining + 1 : left.remaining;
  }

  it.each([
    ['counts a success when only failures are skipped', { countOutcome: (o: { status: number }) => o.status < 400 }, 200, 9],
    ['gives a failure its charge back', { countOutcome: (o: { status: number }) => o.status < 400 }, 503, 10],
    ['gives a success back under skipSuccessfulRequests', { countOutcome: (o: { status: number }) => o.status >= 400 }, 200, 10],
    ['charges the real cost when it is larger', { settle: () => 4 }, 200, 6],
    ['refunds down to the real cost when it is smaller', { cost: () => 5, settle: () => 2 }, 200, 8],
    ['settles by the response size', { settle: (o: { contentLength?: number }) => Math.ceil((o.contentLength ?? 0) / 1024) }, 200, 7],
  ] as const)('%s', async (_name, options, status, left) => {
    expect(await run(options, (r) => r.finish(), status, 3000)).toBe(left);
  });

  it('drains the key to empty when the extra cost does not fit, never beyond', async () => {
    expect(await run({ settle: () => 25 }, (r) => r.finish(), 200, undefined, 10)).toBe(0);
  });

  it('sees an aborted response as an outcome: what its handler answered, aborted', async () => {
    const seen: unknown[] = [];
    expect(await run({ countOutcome: (o: object) => (seen.push(o), false) }, (r) => (r.leave(), r.answer(401)), 200, 12)).toBe(10);
    expect(seen).toEqual([{ status: 401, aborted: true, contentLength: 12 }]);
  });

  it('counts an aborted failed login under the login recipe, and gives back an aborted success', async () => {
    const recipe = { countOutcome: (o: { status: number }) => o.status >= 400 };
    expect(await run(recipe, (r) => (r.leave(), r.answer(401)))).toBe(9);
    expect(await run(recipe, (r) => (r.leave(), r.answer(200)))).toBe(10);
  });

  it('settles once although finish precedes close, and the same check catches a watcher listening to both (mutant)', async () => {
    const limiter = windowOf(10);
    const hooks = { countOutcome: undefined, settle: () => 3 };
    const charges = new WeakMap();
    const real = prepareRateLimit<Req>('rateLimit', { limiter, key: (r: Req) => r.id, settle: hooks.settle });
    const mutant = { ...real, watch: doubleSettleWatch('m', hooks, charges) };
    for (const [plan, want] of [
      [real, 7],
      [mutant, 5],
    ] as const) {
      limiter.reset('a');
      const req = { id: 'a' };
      const decision = plan.decide(req, undefined) as Decision;
      if (plan === mutant) charges.set(req, { limiter, key: 'a', cost: 1 });
      const r = response();
      plan.watch?.(req, r.res, decision);
      r.finish();
      await flush();
      expect(limiter.peek('a').remaining + 1, plan === real ? 'real' : 'mutant').toBe(want);
    }
  });

  it('claim hands out one Settle per admitted request, acting on its first call only; none for a denied or claimed request', async () => {
    const limiter = windowOf(2);
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: (r: Req) => r.id, settle: () => 0 });
    const [first, second, third] = [{ id: 'a' }, { id: 'a' }, { id: 'a' }];
    const settle = plan.claim?.(first, plan.decide(first, undefined) as Decision);
    expect(plan.claim?.(first, { allowed: true } as Decision)).toBeUndefined();
    const admitted = plan.decide(second, undefined) as Decision;
    expect(plan.claim?.(third, plan.decide(third, undefined) as Decision)).toBeUndefined();
    settle?.({ status: 200, aborted: false, contentLength: 0 });
    settle?.({ status: 200, aborted: false, contentLength: 0 });
    await flush();
    expect([admitted.allowed, limiter.peek('a').remaining]).toEqual([true, 0]);
  });

  it('does not watch a denied request, and turns a failing hook into a warning', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    expect(await run({ settle: () => Promise.reject(new Error('meter down')) }, (r) => r.finish())).toBe(9);
    expect(warn).toHaveBeenCalledWith('rateLimit: countOutcome or settle failed after the response: Error: meter down', {
      type: 'RatekeeperWarning',
      code: 'RATEKEEPER_SETTLE_FAILED',
    });
    expect(await run({ settle: () => -1 }, (r) => r.finish())).toBe(9);
    const limiter = windowOf(1);
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: () => 'a', countOutcome: () => false });
    void plan.decide({ id: 'a' }, undefined);
    const denied = plan.decide({ id: 'a' }, undefined) as Decision;
    const r = response();
    plan.watch?.({ id: 'a' }, r.res, denied);
    r.finish();
    await flush();
    expect(limiter.peek('a').allowed).toBe(false);
  });

  it('turns a failing hook into a console warning where there is no process.emitWarning (Workers)', async () => {
    const emitWarning = process.emitWarning;
    const seen: string[] = [];
    const warn = console.warn;
    try {
      (process as { emitWarning?: unknown }).emitWarning = undefined;
      console.warn = (text: string) => void seen.push(text);
      expect(await run({ settle: () => Promise.reject(new Error('meter down')) }, (r) => r.finish())).toBe(9);
      await flush();
    } finally {
      process.emitWarning = emitWarning;
      console.warn = warn;
    }
    expect(seen).toEqual(['RatekeeperWarning [RATEKEEPER_SETTLE_FAILED]: rateLimit: countOutcome or settle failed after the response: Error: meter down']);
  });
});
