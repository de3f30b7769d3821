/**
 * limitedResponse: a denial is a 429 `application/problem+json` body of draft-10's quota-exceeded type
 * whose violated-policies are exactly the members that denied (checked against each member's own peek
 * at the same instant, an oracle that does not read `parts`), with no Retry-After promise when no
 * wait can help; a store failing 'closed' is a 503 temporary-reduced-capacity. Every body is valid
 * JSON and carries no key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompositeLimiter,
  type Decision,
  FixedWindowLimiter,
  ManualClock,
  PROBLEM_CONTENT_TYPE,
  SlidingWindowLimiter,
  TokenBucketLimiter,
  limitedResponse,
} from '../../src/index.js';

const TYPES = 'https://iana.org/assignments/http-problem-types';
const KEY = 'client-7f3a9c\r\n<script>';
const t0 = 1_700_000_040_000;

function pair() {
  const clock = new ManualClock(t0);
  const burst = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'burst', clock });
  const minute = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, name: 'minute', clock });
  return { clock, burst, minute, composite: new CompositeLimiter([burst, minute]) };
}

function body(decision: Decision): Record<string, unknown> {
  const response = limitedResponse(decision);
  expect(response.contentType).toBe(PROBLEM_CONTENT_TYPE);
  expect(PROBLEM_CONTENT_TYPE).toBe('application/problem+json');
  expect(response.body).not.toContain('client-7f3a9c');
  const parsed = JSON.parse(response.body) as Record<string, unknown>;
  expect(parsed.status).toBe(response.status);
  return parsed;
}

describe('limitedResponse', () => {
  it('answers a single-policy denial with 429 quota-exceeded and the wait in whole seconds', () => {
    const clock = new ManualClock(t0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 0.5, name: 'api', clock });
    limiter.consume(KEY);
    clock.set(t0 + 1);
    expect(limitedResponse(limiter.consume(KEY)).status).toBe(429);
    expect(body(limiter.consume(KEY))).toEqual({
      type: `${TYPES}#quota-exceeded`,
      title: 'Request cannot be satisfied as assigned quota has been exceeded',
      status: 429,
      detail: 'Retry after 2 s.',
      'violated-policies': ['api'],
    });
  });

  it('names exactly the denying members of a composite, in member order', () => {
    const { clock, composite } = pair();
    composite.consume(KEY);
    composite.consume(KEY);
    expect(body(composite.consume(KEY))['violated-policies']).toEqual(['burst']);
    clock.set(t0 + 1000);
    composite.consume(KEY);
    expect(body(composite.consume(KEY))['violated-policies']).toEqual(['burst', 'minute']);
    clock.set(t0 + 2000);
    expect(body(composite.consume(KEY))).toMatchObject({ detail: 'Retry after 58 s.', 'violated-policies': ['minute'] });
  });

  it('names the members whose own peek denies, for any composite and history', () => {
    const member = fc.oneof(
      fc.record({ capacity: fc.integer({ min: 1, max: 5 }), refill: fc.constantFrom(0.5, 1, 3) }).map(
        ({ capacity, refill }) =>
          (clock: ManualClock, name: string) =>
            new TokenBucketLimiter({ capacity, refillPerSecond: refill, name, clock }),
      ),
      fc.record({ limit: fc.integer({ min: 1, max: 5 }), windowMs: fc.constantFrom(700, 1000, 5000) }).map(
        ({ limit, windowMs }) =>
          (clock: ManualClock, name: string) =>
            new SlidingWindowLimiter({ limit, windowMs, name, clock }),
      ),
    );
    const moves = fc.array(fc.record({ dt: fc.nat(1500), cost: fc.integer({ min: 1, max: 6 }) }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(fc.array(member, { minLength: 2, maxLength: 3 }), moves, (makers, history) => {
        const clock = new ManualClock(t0);
        const members = makers.map((make, i) => make(clock, `m${i}`));
        const composite = new CompositeLimiter(members);
        for (const { dt, cost } of history) {
          clock.set(clock.now() + dt);
          const decision = composite.consume(KEY, cost);
          if (decision.allowed) continue;
          const denying = members.filter((m) => !m.peek(KEY, cost).allowed).map((m) => m.policy.name);
          expect(body(decision)['violated-policies']).toEqual(denying);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('promises no retry to a request that no wait can grant', () => {
    const { composite } = pair();
    const parsed = body(composite.consume(KEY, 3));
    expect(parsed).toMatchObject({ status: 429, detail: 'The request costs more than the policy can ever grant.', 'violated-policies': ['burst'] });
    expect(JSON.stringify(parsed)).not.toMatch(/retry after/i);
  });

  it('answers a store failing closed with 503 temporary-reduced-capacity', () => {
    const { composite } = pair();
    const denied = composite.consume(KEY, 3);
    const closed: Decision = { ...denied, retryAfterMs: 1000, failure: 'closed' };
    expect(limitedResponse(closed).status).toBe(503);
    expect(body(closed)).toEqual({ type: `${TYPES}#temporary-reduced-capacity`, title: 'Service temporarily unable to apply its rate limits', status: 503 });
  });

  it('answers a fallback limiter’s denial like any other: 429 quota-exceeded', () => {
    const { composite } = pair();
    composite.consume(KEY);
    composite.consume(KEY);
    const fallback: Decision = { ...composite.consume(KEY), failure: 'fallback' };
    expect(body(fallback)).toMatchObject({ status: 429, type: `${TYPES}#quota-exceeded`, 'violated-policies': ['burst'] });
  });
});
