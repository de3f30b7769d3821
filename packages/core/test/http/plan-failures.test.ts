/**
 * decide when something breaks, and onDecision. A limiter whose promise rejects (a store breaking its
 * never-reject contract) becomes a RateLimiterError whose message and stack carry none of the store's
 * text (the harness catches a plan that passes the store's error on: mutant); errors thrown by key,
 * cost, skip and onDecision reach the caller as they are (async hooks: async-hooks.test.ts);
 * onDecision sees every decision, and decide waits for a promise it returns.
 */
import { describe, expect, it } from 'vitest';
import { type Decision, ManualClock, RateLimiterError, TokenBucketLimiter } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { leakyPlan } from './mutants.js';
import { counting } from './support.js';

type Req = { readonly id: string };
const req: Req = { id: 'r1' };
const SECRET = 'connect ECONNREFUSED redis://:hunter2@10.0.0.5:6379';
const MODES = ['sync', 'async'] as const;
const prepare = (options: unknown) => prepareRateLimit<Req>('rateLimit', options as never);
const bucket = (mode: 'sync' | 'async' = 'sync', fail?: Error) =>
  counting(new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock: new ManualClock(1_700_000_000_000) }), mode, fail);

/** outcome runs decide and answers what it threw or rejected with, or the decision. */
async function outcome(plan: ReturnType<typeof prepare>): Promise<unknown> {
  try {
    return await plan.decide(req, '1.2.3.4');
  } catch (error) {
    return error;
  }
}

/** expectOpaque: a broken limiter's failure names the owner only, keeping the store's error as `cause` for logs. */
async function expectOpaque(plan: ReturnType<typeof prepare>): Promise<void> {
  const error = (await outcome(plan)) as RateLimiterError;
  expect(error).toBeInstanceOf(RateLimiterError);
  expect([error.name, error.message, error.status, error.statusCode]).toEqual(['RateLimiterError', 'rateLimit: the limiter failed to decide', 500, 500]);
  expect(String(error.stack)).not.toContain('hunter2');
  expect(JSON.stringify(error)).not.toContain('hunter2');
  expect((error.cause as Error).message).toBe(SECRET);
}

describe('a limiter whose promise rejects', () => {
  it('surfaces as a RateLimiterError without the store’s message', async () => {
    await expectOpaque(prepare({ limiter: bucket('async', new Error(SECRET)).limiter }));
  });

  it('surfaces the same way with onDecision, which it never reaches', async () => {
    const seen: Decision[] = [];
    await expectOpaque(prepare({ limiter: bucket('async', new Error(SECRET)).limiter, onDecision: (d: Decision) => void seen.push(d) }));
    expect(seen).toEqual([]);
  });

  it('is caught passing the store’s error on (mutant)', async () => {
    await expect(expectOpaque(leakyPlan(prepare({ limiter: bucket('async', new Error(SECRET)).limiter })))).rejects.toThrow();
  });
});

describe('errors from the hooks', () => {
  it.each(MODES)('reach the caller as they are, uncounted, with a %s limiter', async (mode) => {
    for (const hook of ['key', 'cost', 'skip']) {
      const thrown = new Error(`${hook} broke`);
      const { limiter, calls } = bucket(mode);
      expect(() =>
        prepare({
          limiter,
          [hook]: () => {
            throw thrown;
          },
        }).decide(req, '1.2.3.4'),
      ).toThrow(thrown);
      expect(calls).toEqual([]);
    }
    const thrown = new Error('onDecision broke');
    expect(
      await outcome(
        prepare({
          limiter: bucket(mode).limiter,
          onDecision: () => {
            throw thrown;
          },
        }),
      ),
    ).toBe(thrown);
  });
});

describe('onDecision', () => {
  it.each(MODES)('sees every decision, with its request, before decide answers it (%s limiter)', async (mode) => {
    const seen: [boolean, string][] = [];
    const plan = prepare({ limiter: bucket(mode).limiter, onDecision: (d: Decision, r: Req) => void seen.push([d.allowed, r.id]) });
    const answers: boolean[] = [];
    for (let i = 0; i < 3; i++) answers.push(((await plan.decide(req, '1.2.3.4')) as Decision).allowed);
    expect(answers).toEqual([true, true, false]);
    expect(seen).toEqual([
      [true, 'r1'],
      [true, 'r1'],
      [false, 'r1'],
    ]);
  });

  it.each(MODES)('answers the decision it was given, unchanged (%s limiter)', async (mode) => {
    const seen: Decision[] = [];
    const plan = prepare({ limiter: bucket(mode).limiter, onDecision: (d: Decision) => void seen.push(d) });
    expect(await plan.decide(req, '1.2.3.4')).toBe(seen[0]);
  });

  it.each(MODES)('makes decide wait for the promise it returns, and reject with its rejection (%s limiter)', async (mode) => {
    const log: string[] = [];
    const slow = prepare({
      limiter: bucket(mode).limiter,
      onDecision: async (d: Decision) => {
        await Promise.resolve();
        log.push(`reported ${d.allowed}`);
      },
    });
    const answer = slow.decide(req, '1.2.3.4');
    expect(answer).toBeInstanceOf(Promise);
    log.push(`answered ${((await answer) as Decision).allowed}`);
    expect(log).toEqual(['reported true', 'answered true']);
    const rejected = new Error('metrics down');
    expect(await outcome(prepare({ limiter: bucket(mode).limiter, onDecision: () => Promise.reject(rejected) }))).toBe(rejected);
  });
});
