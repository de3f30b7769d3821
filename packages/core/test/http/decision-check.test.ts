/**
 * The plan's Decision check: every answer of the core limiters passes (fast-check over costs and
 * instants, composites included), and each way a hand-written limiter can answer something unusable
 * becomes one RateLimiterError from decide, sync or async, whose cause says what was wrong. A limiter
 * whose own policy names are not header-safe is refused when the plan is prepared. A consume that
 * throws synchronously is a RateLimiterError too; a bad key or cost from the caller's functions stays
 * the caller's TypeError / RangeError.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompositeLimiter, type Decision, ManualClock, RateLimiterError, type RateLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { decisionProblem } from '../../src/http/decide/decision-check.js';

type Req = Record<string, never>;
const prepare = (options: unknown) => prepareRateLimit<Req>('rateLimit', options as never);

function answering(mode: 'sync' | 'async', answer: (d: Decision) => unknown, throws?: Error): RateLimiter {
  const inner = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) });
  const consume = (key: string, cost?: number) => {
    if (throws !== undefined) throw throws;
    const value = answer(inner.consume(key, cost));
    return mode === 'sync' ? value : Promise.resolve(value);
  };
  return { ...inner, mode, policies: inner.policies, consume } as unknown as RateLimiter;
}

async function settle(value: () => unknown): Promise<unknown> {
  try {
    return await value();
  } catch (error) {
    return error;
  }
}

describe('decisionProblem', () => {
  it('passes every decision of the core limiters, composites included', () => {
    const clock = new ManualClock(0);
    const tb = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 2, clock });
    const sw = new SlidingWindowLimiter({ limit: 3, windowMs: 1000, clock });
    const both = new CompositeLimiter([new TokenBucketLimiter({ capacity: 4, refillPerSecond: 1, clock }), new SlidingWindowLimiter({ limit: 2, windowMs: 500, clock })]);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 1, max: 8 })), { maxLength: 30 }), (steps) => {
        for (const [advance, cost] of steps) {
          clock.advance(advance);
          for (const limiter of [tb, sw, both]) expect(decisionProblem(limiter.consume('k', cost), limiter.policies)).toBeUndefined();
        }
      }),
    );
  });

  it.each([
    ['null', () => null, 'the limiter answered null, not a Decision'],
    ['a string', () => 'yes', 'the limiter answered "yes", not a Decision'],
    ['{}', () => ({}), 'allowed is undefined'],
    ['allowed as a string', (d: Decision) => ({ ...d, allowed: 'true' }), 'allowed is "true"'],
    ['NaN remaining', (d: Decision) => ({ ...d, remaining: Number.NaN }), 'remaining is NaN'],
    ['a negative limit', (d: Decision) => ({ ...d, limit: -1 }), 'limit is -1'],
    ['an infinite resetAfterMs', (d: Decision) => ({ ...d, resetAfterMs: Infinity }), 'resetAfterMs is Infinity'],
    ['NaN retryAfterMs', (d: Decision) => ({ ...d, retryAfterMs: Number.NaN }), 'retryAfterMs is NaN'],
    ['an unknown failure', (d: Decision) => ({ ...d, failure: 'maybe' }), 'failure is "maybe"'],
    ['no policy', (d: Decision) => ({ ...d, policy: undefined }), 'policy is undefined'],
    ['a foreign policy named with CR LF', (d: Decision) => ({ ...d, policy: { ...d.policy, name: 'a\r\nb' } }), 'policy name "a\\r\\nb" is not a header-safe token'],
    ['parts null', (d: Decision) => ({ ...d, parts: null }), 'parts is null, not a non-empty array'],
    ['an empty parts', (d: Decision) => ({ ...d, parts: [] }), 'parts is an array, not a non-empty array'],
    ['a broken part', (d: Decision) => ({ ...d, parts: [d, { ...d, remaining: -2 }] }), 'parts[1]: remaining is -2'],
  ])('refuses %s, as one RateLimiterError from decide, sync and async', async (_, answer, problem) => {
    for (const mode of ['sync', 'async'] as const) {
      const error = (await settle(() => prepare({ limiter: answering(mode, answer) }).decide({}, '1.2.3.4'))) as RateLimiterError;
      expect(error).toBeInstanceOf(RateLimiterError);
      expect((error.cause as Error).message).toBe(problem);
    }
  });

  it('accepts a foreign policy with a header-safe name and Infinity retryAfterMs (never satisfiable)', () => {
    const answer = (d: Decision) => ({ ...d, allowed: false, retryAfterMs: Infinity, policy: { ...d.policy, name: 'other' } });
    expect(decisionProblem(answer(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 }).consume('k') as Decision), [])).toBeUndefined();
  });
});

describe('the limiter failing in decide', () => {
  it('a consume that throws synchronously is a RateLimiterError with the original as cause, in either mode', async () => {
    const thrown = new Error('ECONNREFUSED redis://:hunter2@10.0.0.5');
    for (const mode of ['sync', 'async'] as const) {
      const error = (await settle(() => prepare({ limiter: answering(mode, (d) => d, thrown) }).decide({}, '1.2.3.4'))) as RateLimiterError;
      expect([error.name, error.message, error.cause]).toEqual(['RateLimiterError', 'rateLimit: the limiter failed to decide', thrown]);
    }
  });

  it.each([
    [{ key: () => 42 }, new TypeError('rateLimit: key(req) must return a string, got 42')],
    [{ cost: () => 0 }, new RangeError('rateLimit: cost(req) must be a positive integer, got 0')],
    [{ cost: () => '2' }, new TypeError('rateLimit: cost(req) must be a positive integer, got "2"')],
  ])('a bad key or cost from the caller stays the caller’s error: %o', (options, error) => {
    expect(() => prepare({ limiter: answering('sync', (d) => d), ...options }).decide({}, '1.2.3.4')).toThrowError(error);
  });

  it('refuses, at preparation, a limiter whose own policy names are not header-safe', () => {
    const limiter = { ...answering('sync', (d) => d), policies: [{ algorithm: 'token-bucket', name: 'x\ny', limit: 1, windowMs: 1000 }] };
    expect(() => prepare({ limiter })).toThrowError(new TypeError('rateLimit: limiter policies[0]: policy name "x\\ny" is not a header-safe token'));
  });
});
