/**
 * LimitedBodies answers exactly what core's limitedResponse would, byte for byte, whatever the
 * decision (single or composite, any wait, never satisfiable, a 'closed' failure, foreign policies),
 * cached or not; and it keeps at most MAX_LIMITED_BODIES bodies.
 */
import { CompositeLimiter, type Decision, ManualClock, type Policy, TokenBucketLimiter, limitedResponse } from '../../src/index.js';
import { LimitedBodies, MAX_LIMITED_BODIES } from '../../src/adapter.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const clock = new ManualClock(0);
const single = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock, name: 'single' });
const composite = new CompositeLimiter([
  new TokenBucketLimiter({ capacity: 2, refillPerSecond: 2, clock, name: 'second' }),
  new TokenBucketLimiter({ capacity: 100, refillPerSecond: 1, clock, name: 'minute' }),
  new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 0.1, clock, name: 'day' }),
]);
const foreign = new TokenBucketLimiter({ capacity: 7, refillPerSecond: 1, clock, name: 'foreign' }).policy;

const wait = fc.oneof(fc.integer({ min: 1, max: 10_000_000 }), fc.constant(Number.POSITIVE_INFINITY));
const failure = fc.constantFrom(undefined, 'closed' as const, 'fallback' as const);

function decision(policy: Policy, allowed: boolean, retryAfterMs: number, extra: Partial<Decision> = {}): Decision {
  return { allowed, limit: policy.limit, remaining: 0, retryAfterMs: allowed ? 0 : retryAfterMs, resetAfterMs: 1000, policy, ...extra };
}

const singleDecision = fc.tuple(fc.boolean(), wait, failure).map(([own, ms, f]) => decision(own ? single.policy : foreign, false, ms, f === undefined ? {} : { failure: f }));

const compositeDecision = fc.tuple(fc.array(fc.tuple(fc.boolean(), wait), { minLength: 3, maxLength: 3 }), failure, fc.boolean()).map(([members, f, swap]) => {
  const policies = swap ? [...composite.policies].reverse() : composite.policies;
  const parts = members.map(([allowed, ms], i) => decision(policies[i] as Policy, allowed, ms));
  const worst = parts.reduce((a, b) => (b.retryAfterMs > a.retryAfterMs ? b : a));
  return { ...worst, allowed: false, parts, ...(f === undefined ? {} : { failure: f }) } as Decision;
});

function expectSameAsCore(bodies: LimitedBodies, d: Decision): void {
  const want = limitedResponse(d);
  const got = bodies.get(d);
  expect([got.status, got.contentType, new TextDecoder().decode(got.bytes)]).toEqual([want.status, want.contentType, want.body]);
}

describe('LimitedBodies', () => {
  it('answers byte for byte what limitedResponse gives, for single-policy decisions', () => {
    const bodies = new LimitedBodies(single.policies);
    fc.assert(
      fc.property(singleDecision, singleDecision, (a, b) => {
        expectSameAsCore(bodies, a);
        expectSameAsCore(bodies, b);
        expectSameAsCore(bodies, a);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers byte for byte what limitedResponse gives, for composite decisions', () => {
    const bodies = new LimitedBodies(composite.policies);
    fc.assert(
      fc.property(compositeDecision, compositeDecision, (a, b) => {
        expectSameAsCore(bodies, a);
        expectSameAsCore(bodies, b);
        expectSameAsCore(bodies, a);
      }),
      { numRuns: 2000 },
    );
  });

  it('returns the very same bytes for a repeated denial', () => {
    const bodies = new LimitedBodies(single.policies);
    const d = decision(single.policy, false, 1500);
    expect(bodies.get(d).bytes).toBe(bodies.get({ ...d, remaining: 3, resetAfterMs: 9 }).bytes);
  });

  it(`keeps at most ${MAX_LIMITED_BODIES} bodies however many different waits it sees`, () => {
    const bodies = new LimitedBodies(single.policies);
    for (let s = 1; s <= 3 * MAX_LIMITED_BODIES; s++) expectSameAsCore(bodies, decision(single.policy, false, s * 1000));
    expect(bodies.size).toBe(MAX_LIMITED_BODIES);
  });
});
