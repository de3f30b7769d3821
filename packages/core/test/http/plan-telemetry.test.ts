/**
 * The plan reports every decision it takes to `telemetry`, once, with the outcome the request got and,
 * for a limiter answering with a promise, the store's time; skipped requests are not decisions; an
 * observer that throws changes nothing; no telemetry means nothing is called.
 */
import { describe, expect, it } from 'vitest';
import { type Decision, type DecisionOutcome, ManualClock, type RateLimiter, TokenBucketLimiter } from '../../src/index.js';
import { outcomeOf, prepareRateLimit } from '../../src/adapter.js';

type Seen = [DecisionOutcome, boolean, 'sync' | 'async'];

function recorder() {
  const seen: Seen[] = [];
  return { seen, telemetry: { decided: (d: Decision, o: DecisionOutcome, ms: number | undefined) => void seen.push([o, d.allowed, ms === undefined ? 'sync' : 'async']) } };
}
const bucket = () => new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock: new ManualClock(0) });
const asyncOf = (inner: RateLimiter<'sync'>, failure?: Decision['failure']): RateLimiter<'async'> => ({
  mode: 'async',
  policies: inner.policies,
  consume: async (k, c) => ({ ...inner.consume(k, c), ...(failure === undefined ? {} : { failure }) }),
  peek: async (k, c) => inner.peek(k, c),
  allow: async (k, c) => inner.allow(k, c),
  reset: async (k) => inner.reset(k),
});

describe('plan telemetry', () => {
  it('reports each synchronous decision once with its outcome and no store time', () => {
    const { seen, telemetry } = recorder();
    const plan = prepareRateLimit('rateLimit', { limiter: bucket(), telemetry });
    for (let i = 0; i < 3; i++) plan.decide({}, '1.2.3.4');
    expect(seen).toEqual([
      ['allowed', true, 'sync'],
      ['allowed', true, 'sync'],
      ['limited', false, 'sync'],
    ]);
  });

  it('reports shadow denials as shadow_limited and skipped requests not at all', () => {
    const { seen, telemetry } = recorder();
    let n = 0;
    const plan = prepareRateLimit('rateLimit', { limiter: bucket(), telemetry, shadow: true, skip: () => n++ === 1 });
    for (let i = 0; i < 4; i++) plan.decide({}, '1.2.3.4');
    expect(seen.map((s) => s[0])).toEqual(['allowed', 'allowed', 'shadow_limited']);
  });

  it('reports an async decision with the store time, after it settles', async () => {
    const { seen, telemetry } = recorder();
    const plan = prepareRateLimit('rateLimit', { limiter: asyncOf(bucket(), 'fallback'), telemetry });
    const pending = [plan.decide({}, '1.2.3.4'), plan.decide({}, '1.2.3.4'), plan.decide({}, '1.2.3.4')];
    expect(seen).toEqual([]);
    await Promise.all(pending);
    expect(seen).toEqual([
      ['fallback_allowed', true, 'async'],
      ['fallback_allowed', true, 'async'],
      ['fallback_limited', false, 'async'],
    ]);
  });

  it('answers the same decision when the observer throws', async () => {
    const telemetry = {
      decided: () => {
        throw new Error('observer broke');
      },
    };
    const plan = prepareRateLimit('rateLimit', { limiter: bucket(), telemetry });
    expect((plan.decide({}, '1.2.3.4') as Decision).remaining).toBe(1);
    const remote = prepareRateLimit('rateLimit', { limiter: asyncOf(bucket()), telemetry });
    expect((await remote.decide({}, '1.2.3.4'))?.remaining).toBe(1);
  });

  it.each([
    [{ allowed: true }, false, 'allowed'],
    [{ allowed: false }, false, 'limited'],
    [{ allowed: false }, true, 'shadow_limited'],
    [{ allowed: true, failure: 'open' }, false, 'failure_open'],
    [{ allowed: false, failure: 'closed' }, true, 'failure_closed'],
    [{ allowed: true, failure: 'fallback' }, false, 'fallback_allowed'],
    [{ allowed: false, failure: 'fallback' }, true, 'fallback_limited'],
  ] as const)('outcomeOf(%j, shadow %s) is %s', (decision, shadow, want) => {
    expect(outcomeOf(decision as unknown as Decision, shadow)).toBe(want);
  });
});
