/**
 * Header values by table at fixed instants: seconds() and retryAfterSeconds() round up (a client that
 * obeys is never early, redis-cell#56), RateLimit-Policy and RateLimit are draft-10 Structured Field
 * lists with one item per policy, and writeHeaders writes exactly the set each style names, in order.
 * The figures in every table were worked out by hand from the algorithms' definitions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompositeLimiter,
  type Decision,
  FixedWindowLimiter,
  type HeaderStyle,
  ManualClock,
  SlidingWindowLimiter,
  TokenBucketLimiter,
  retryAfterSeconds,
  seconds,
} from '../../src/index.js';
import { limitField, policyField, writeHeaders } from '../../src/adapter.js';
import { roundedRetryAfterSeconds } from './mutants.js';
import { recorder, runFields } from './support.js';

/** An instant on a whole minute, so that fixed windows start at t0. */
const t0 = 1_700_000_040_000;
const policy = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'api' }).policy;
const denial = (retryAfterMs: number): Decision => ({ allowed: false, limit: 2, remaining: 0, retryAfterMs, resetAfterMs: 2000, policy });

/** neverEarly: `s` whole seconds cover `ms` and overshoot by less than one second (exact, in BigInt). */
function neverEarly(retry: (d: Decision) => number | undefined) {
  return fc.property(fc.oneof(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })), (ms) => {
    const s = retry(denial(ms));
    if (s === undefined || !Number.isSafeInteger(s) || s < 1) throw new Error(`${ms} ms: Retry-After ${s}`);
    if (BigInt(s) * 1000n < BigInt(ms) || BigInt(s) * 1000n >= BigInt(ms) + 1000n) throw new Error(`${ms} ms: Retry-After ${s} s`);
  });
}

describe('seconds', () => {
  it.each([
    [0, 0],
    [-1, 0],
    [-60_000, 0],
    [0.4, 1],
    [1, 1],
    [999, 1],
    [1000, 1],
    [1001, 2],
    [59_999, 60],
    [60_000, 60],
    [60_001, 61],
  ])('rounds %d ms up to %i s', (ms, s) => {
    expect(seconds(ms)).toBe(s);
  });

  it('is never earlier than the truth and less than a second later', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (ms) => {
        const s = BigInt(seconds(ms));
        expect(s * 1000n >= BigInt(ms) && s * 1000n < BigInt(ms) + 1000n, `${ms} ms → ${s} s`).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('retryAfterSeconds', () => {
  it.each([
    [1, 1],
    [999, 1],
    [1000, 1],
    [1001, 2],
    [1999, 2],
    [2000, 2],
    [2001, 3],
    [3_600_000, 3600],
  ])('answers a wait of %i ms with %i s', (ms, s) => {
    expect(retryAfterSeconds(denial(ms))).toBe(s);
  });

  it('answers undefined for a request no wait can grant', () => {
    expect(retryAfterSeconds(denial(Number.POSITIVE_INFINITY))).toBeUndefined();
  });

  it('is never earlier than retryAfterMs, less than a second later, and at least 1', () => {
    fc.assert(neverEarly(retryAfterSeconds), { numRuns: 5000 });
  });

  it('catches a Retry-After rounded to the nearest second (mutant)', () => {
    expect(fc.check(neverEarly(roundedRetryAfterSeconds), { numRuns: 5000 }).failed).toBe(true);
  });
});

describe('policyField', () => {
  it.each([
    [new TokenBucketLimiter({ capacity: 10, refillPerSecond: 2, name: 'api' }), '"api";q=10;w=5'],
    [new TokenBucketLimiter({ capacity: 60, refillPerSecond: 1 }), '"tb-60-1";q=60;w=60'],
    [new TokenBucketLimiter({ capacity: 5, refillPerSecond: 3 }), '"tb-5-3";q=5;w=2'],
    [new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1e6 }), '"tb-1-1e6";q=1;w=1'],
    [new SlidingWindowLimiter({ limit: 100, windowMs: 60_000, name: 'minute' }), '"minute";q=100;w=60'],
    [new FixedWindowLimiter({ limit: 10, windowMs: 1500 }), '"fw-10-1500";q=10;w=2'],
    [new FixedWindowLimiter({ limit: 3, windowMs: 1 }), '"fw-3-1";q=3;w=1'],
  ])('describes %s', (limiter, field) => {
    expect(policyField(limiter.policies)).toBe(field);
  });

  it('lists a composite’s members in member order, joined by ", "', () => {
    const clock = new ManualClock();
    const composite = new CompositeLimiter([
      new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'burst', clock }),
      new FixedWindowLimiter({ limit: 3, windowMs: 60_000, name: 'minute', clock }),
      new SlidingWindowLimiter({ limit: 1000, windowMs: 86_400_000, name: 'day.v2', clock }),
    ]);
    expect(policyField(composite.policies)).toBe('"burst";q=2;w=2, "minute";q=3;w=60, "day.v2";q=1000;w=86400');
  });
});

/** The RateLimit field and, on a denial, the Retry-After value. */
const fieldsOf = (d: Decision) => ({ limit: limitField(d), retryAfter: d.allowed ? undefined : retryAfterSeconds(d)?.toString() });

describe('limitField', () => {
  it('follows a single token bucket (2 tokens, 1 per second)', () => {
    const clock = new ManualClock(t0);
    runFields(
      new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'api', clock }),
      clock,
      t0,
      [
        { at: 0, limit: '"api";r=1;t=1', retryAfter: undefined },
        { at: 0, limit: '"api";r=0;t=2', retryAfter: undefined },
        { at: 0, limit: '"api";r=0;t=1', retryAfter: '1' },
        { at: 400, limit: '"api";r=0;t=1', retryAfter: '1' },
        { at: 1500, limit: '"api";r=0;t=2', retryAfter: undefined },
        { at: 1500, limit: '"api";r=0;t=1', retryAfter: '1' },
        { at: 1500, cost: 3, limit: '"api";r=0;t=2', retryAfter: undefined },
        { at: 9000, limit: '"api";r=1;t=1', retryAfter: undefined },
      ],
      fieldsOf,
    );
  });

  it('gives one item per member of a composite (2 per burst of 1 s, 3 per fixed minute)', () => {
    const clock = new ManualClock(t0);
    const burst = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'burst', clock });
    const minute = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, name: 'minute', clock });
    runFields(
      new CompositeLimiter([burst, minute]),
      clock,
      t0,
      [
        { at: 0, limit: '"burst";r=1;t=1, "minute";r=2;t=60', retryAfter: undefined },
        { at: 0, limit: '"burst";r=0;t=2, "minute";r=1;t=60', retryAfter: undefined },
        // burst denies (a token in 1 s); minute would admit and still holds 1.
        { at: 0, limit: '"burst";r=0;t=1, "minute";r=1;t=60', retryAfter: '1' },
        { at: 1000, limit: '"burst";r=0;t=2, "minute";r=0;t=59', retryAfter: undefined },
        // Both deny: burst in 1 s, minute at the next window; Retry-After is the later.
        { at: 1000, limit: '"burst";r=0;t=1, "minute";r=0;t=59', retryAfter: '59' },
        // 3 tokens never fit a bucket of 2: no Retry-After, and burst's t is its time to a full reset.
        { at: 1000, cost: 3, limit: '"burst";r=0;t=2, "minute";r=0;t=59', retryAfter: undefined },
        { at: 60_000, limit: '"burst";r=1;t=1, "minute";r=2;t=60', retryAfter: undefined },
      ],
      fieldsOf,
    );
  });
});

describe('writeHeaders', () => {
  const clock = new ManualClock(t0);
  const limiter = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'api', clock });
  const allowed = limiter.consume('k');
  limiter.consume('k');
  const denied = limiter.consume('k');
  const never = limiter.consume('k', 3);
  const policyValue = policyField(limiter.policies);
  const draft = (d: Decision): [string, string][] => [
    ['RateLimit-Policy', '"api";q=2;w=2'],
    ['RateLimit', limitField(d)],
  ];
  const legacy = (d: Decision): [string, string][] => [
    ['X-RateLimit-Limit', '2'],
    ['X-RateLimit-Remaining', String(d.remaining)],
    ['X-RateLimit-Reset', String(seconds(d.resetAfterMs))],
  ];

  it('works on the decisions this table assumes', () => {
    expect([allowed.allowed, allowed.remaining, denied.allowed, denied.retryAfterMs, denied.resetAfterMs, never.retryAfterMs]).toEqual([
      true,
      1,
      false,
      1000,
      2000,
      Number.POSITIVE_INFINITY,
    ]);
  });

  it.each<[HeaderStyle, string, Decision, [string, string][]]>([
    [
      'draft-10',
      'allowed',
      allowed,
      [
        ['RateLimit-Policy', '"api";q=2;w=2'],
        ['RateLimit', '"api";r=1;t=1'],
      ],
    ],
    [
      'draft-10',
      'denied',
      denied,
      [
        ['RateLimit-Policy', '"api";q=2;w=2'],
        ['RateLimit', '"api";r=0;t=1'],
        ['Retry-After', '1'],
      ],
    ],
    ['draft-10', 'never satisfiable', never, draft(never)],
    [
      'legacy',
      'allowed',
      allowed,
      [
        ['X-RateLimit-Limit', '2'],
        ['X-RateLimit-Remaining', '1'],
        ['X-RateLimit-Reset', '1'],
      ],
    ],
    [
      'legacy',
      'denied',
      denied,
      [
        ['X-RateLimit-Limit', '2'],
        ['X-RateLimit-Remaining', '0'],
        ['X-RateLimit-Reset', '2'],
        ['Retry-After', '1'],
      ],
    ],
    ['legacy', 'never satisfiable', never, legacy(never)],
    ['both', 'allowed', allowed, [...draft(allowed), ...legacy(allowed)]],
    ['both', 'denied', denied, [...draft(denied), ...legacy(denied), ['Retry-After', '1']]],
    ['both', 'never satisfiable', never, [...draft(never), ...legacy(never)]],
    [false, 'allowed', allowed, []],
    [false, 'denied', denied, [['Retry-After', '1']]],
    [false, 'never satisfiable', never, []],
  ])('style %s on a decision %s writes exactly its headers', (style, _, decision, want) => {
    const { headers, set } = recorder();
    writeHeaders(headers, set, decision, style, policyValue);
    expect(headers).toEqual(want);
  });
});
