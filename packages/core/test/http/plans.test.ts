/**
 * Limits per caller: `plans` + `plan` choose one of several prebuilt limiters per request. Checked at
 * creation (a missing or wrong `plan`, an empty or wrong `plans`, plans beside a limiter, one limiter
 * in two plans); each plan decides with its own limiter and answers with its own RateLimit-Policy item
 * and problem body; a name that is not a plan is a TypeError, uncounted; an async plan is awaited.
 */
import { describe, expect, it } from 'vitest';
import { CompositeLimiter, type Decision, FixedWindowLimiter, ManualClock } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { counting, header, recorder } from './support.js';

type Req = { readonly tier: string; readonly id: string };
const clock = new ManualClock(1_700_000_000_000);
const perMinute = (limit: number, name: string) => new FixedWindowLimiter({ limit, windowMs: 60_000, name, clock });
const prepare = (options: unknown) => prepareRateLimit<Req>('rateLimit', options as never);

describe('plans at creation', () => {
  const free = perMinute(2, 'free');
  it.each<[object, TypeError]>([
    [{ plans: { free } }, new TypeError('rateLimit: plan must be a function naming one of the plans, got undefined')],
    [{ plan: () => 'free' }, new TypeError('rateLimit: plans must be an object of limiters by plan name, got undefined')],
    [{ plans: [free], plan: () => 'free' }, new TypeError('rateLimit: plans must be an object of limiters by plan name, got an array')],
    [{ plans: {}, plan: () => 'free' }, new TypeError('rateLimit: plans must name at least one plan')],
    [{ plans: { free: 100 }, plan: () => 'free' }, new TypeError('rateLimit: plans.free must be a ratekeeper RateLimiter, got 100')],
    [{ plans: { free }, plan: () => 'free', limit: 5 }, new TypeError('rateLimit: give either plans or limiter/algorithm options, not both (got plans and limit)')],
    [{ plans: { free }, plan: () => 'free', limiter: free }, new TypeError('rateLimit: give either plans or limiter/algorithm options, not both (got plans and limiter)')],
    [
      { plans: { free, pro: new CompositeLimiter([free, perMinute(9, 'x')]) }, plan: () => 'free' },
      new TypeError('rateLimit: plans.pro shares a limiter with another plan; give each plan its own limiters'),
    ],
  ])('refuses %o', (options, error) => {
    expect(() => prepare(options)).toThrowError(error);
  });
});

describe('plans per request', () => {
  const setup = (plan: (req: Req) => string | Promise<string>) => {
    const free = counting(perMinute(2, 'free'));
    const pro = counting(new CompositeLimiter([perMinute(4, 'pro'), new FixedWindowLimiter({ limit: 100, windowMs: 86_400_000, name: 'pro-day', clock })]));
    return { free, pro, plan: prepare({ plans: { free: free.limiter, pro: pro.limiter }, plan, key: (r: Req) => r.id }) };
  };

  it.each([
    ['sync', (r: Req) => r.tier],
    ['async', async (r: Req) => r.tier],
  ] as const)('decides each caller by its own plan and answers with its plan’s fields and body (%s plan)', async (_mode, choose) => {
    const { free, pro, plan } = setup(choose);
    const run = async (tier: string) => (await plan.decide({ tier, id: tier }, undefined)) as Decision;
    const answers: string[] = [];
    for (const tier of ['free', 'free', 'free', 'pro', 'pro', 'pro', 'pro', 'pro']) answers.push(`${tier}:${(await run(tier)).allowed}`);
    expect(answers).toEqual(['free:true', 'free:true', 'free:false', 'pro:true', 'pro:true', 'pro:true', 'pro:true', 'pro:false']);
    expect([free.calls.length, pro.calls.length]).toEqual([3, 5]);

    const fields = (d: Decision) => {
      const { headers, set } = recorder();
      plan.writeHeaders(headers, set, d);
      return header(headers, 'RateLimit-Policy');
    };
    const deniedFree = await run('free');
    const deniedPro = await run('pro');
    expect(fields(deniedFree)).toBe('"free";q=2;w=60');
    expect(fields(deniedPro)).toBe('"pro";q=4;w=60, "pro-day";q=100;w=86400');
    expect(JSON.parse(plan.body(deniedFree).bytes.toString())['violated-policies']).toEqual(['free']);
    expect(JSON.parse(plan.body(deniedPro).bytes.toString())['violated-policies']).toEqual(['pro']);
    expect(plan.body(deniedFree)).toBe(plan.body(deniedFree));
  });

  it('refuses a name that is not a plan, uncounted, synchronously or by rejection', async () => {
    const sync = setup(() => 'gold');
    expect(() => sync.plan.decide({ tier: 'gold', id: 'a' }, undefined)).toThrowError(new TypeError('rateLimit: plan(req) must return one of "free", "pro", got "gold"'));
    const async = setup(async () => 'toString');
    await expect(async.plan.decide({ tier: 'x', id: 'a' }, undefined)).rejects.toThrowError(new TypeError('rateLimit: plan(req) must return one of "free", "pro", got "toString"'));
    expect([sync.free.calls, sync.pro.calls, async.free.calls, async.pro.calls]).toEqual([[], [], [], []]);
  });
});
