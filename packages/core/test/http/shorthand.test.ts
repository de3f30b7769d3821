/**
 * chooseLimiter: the documented defaults per algorithm, read back from the built limiter's policy and
 * shown in behaviour at a fixed instant; the caller's ready limiter passed through untouched; and a
 * TypeError naming the culprit for every option mix that a silent ignore would turn into the wrong
 * limit (limiter plus shorthand, a foreign shorthand option, a prototype-named or unknown algorithm,
 * null for "the default"). Bad numbers are the limiters' own RangeErrors.
 */
import { describe, expect, it } from 'vitest';
import {
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  GcraLimiter,
  type LimiterChoice,
  ManualClock,
  MemoryStore,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
} from '../../src/index.js';
import { chooseLimiter, prepareRateLimit } from '../../src/adapter.js';

const OWNER = 'rateLimit';
const choose = (o: unknown) => chooseLimiter(OWNER, o as LimiterChoice);

describe('chooseLimiter defaults', () => {
  it('builds a token bucket of 60, refilled at 1 per second, from no options at all', () => {
    for (const limiter of [choose({}), choose({ algorithm: 'token-bucket' }), prepareRateLimit(OWNER, undefined).limiter, prepareRateLimit(OWNER, {}).limiter]) {
      expect(limiter).toBeInstanceOf(TokenBucketLimiter);
      expect(limiter.policies).toEqual([expect.objectContaining({ algorithm: 'token-bucket', capacity: 60, refillPerSecond: 1, limit: 60, windowMs: 60_000 })]);
    }
  });

  it.each([
    ['sliding-window', SlidingWindowLimiter],
    ['fixed-window', FixedWindowLimiter],
    ['first-request-window', FirstRequestWindowLimiter],
    ['sliding-log', SlidingLogLimiter],
  ] as const)('builds a %s of 60 per 60,000 ms', (algorithm, type) => {
    const limiter = choose({ algorithm });
    expect(limiter).toBeInstanceOf(type);
    const prefix = { 'sliding-window': 'sw', 'fixed-window': 'fw', 'first-request-window': 'frw', 'sliding-log': 'sl' }[algorithm];
    expect(limiter.policies).toEqual([{ algorithm, name: `${prefix}-60-60000`, limit: 60, windowMs: 60_000 }]);
  });

  it.each(['token-bucket', 'sliding-window', 'fixed-window', 'first-request-window', 'sliding-log'] as const)(
    'admits exactly 60 at one instant by default (%s), then waits',
    (algorithm) => {
      const clock = new ManualClock(1_700_000_040_000);
      const limiter = choose({ algorithm, clock });
      const admitted = Array.from({ length: 100 }, () => limiter.consume('k')).filter((d) => (d as { allowed: boolean }).allowed).length;
      expect(admitted).toBe(60);
      // A token in 1 s; the next fixed window; the next window once 1/60 of it has slid past the full one;
      // the log's oldest entry a full minute later; the key's own window, a full minute after its first request.
      const wait = { 'token-bucket': 1000, 'fixed-window': 60_000, 'first-request-window': 60_000, 'sliding-window': 61_000, 'sliding-log': 60_000 }[algorithm];
      expect(limiter.consume('k')).toMatchObject({ allowed: false, retryAfterMs: wait });
    },
  );

  it("builds 'gcra' as GCRA users know it: the token bucket of capacity burst, one token per emission interval", () => {
    const limiter = choose({ algorithm: 'gcra' });
    expect(limiter).toBeInstanceOf(GcraLimiter);
    // Defaults: the token bucket's (60 at once, then 1 per second), under GCRA's names.
    expect(limiter.policies).toEqual([
      { algorithm: 'token-bucket', name: 'gcra-1000-60', capacity: 60, refillPerSecond: 1, intervalMs: 1000, burstMs: 60_000, limit: 60, windowMs: 60_000 },
    ]);
    expect(choose({ algorithm: 'gcra', emissionIntervalMs: 250, burst: 4 }).policies[0]).toMatchObject({ algorithm: 'token-bucket', capacity: 4, intervalMs: 250 });
    expect(() => choose({ algorithm: 'gcra', burst: 0 })).toThrowError(RangeError);
    expect(() => choose({ algorithm: 'gcra', emissionIntervalMs: Number.NaN })).toThrowError(/^GcraLimiter: emissionIntervalMs/);
  });

  it("decides 'gcra' exactly as the token bucket it aliases, request for request", () => {
    const clock = new ManualClock(1_700_000_000_000);
    const gcra = choose({ algorithm: 'gcra', emissionIntervalMs: 500, burst: 3, clock, name: 'g' });
    const bucket = choose({ algorithm: 'token-bucket', capacity: 3, refillPerSecond: 2, clock, name: 'g' });
    for (const dt of [0, 0, 0, 0, 499, 1, 0, 1500, 0, 0, 0, 0]) {
      clock.advance(dt);
      expect(gcra.consume('k'), `at +${dt}`).toEqual(bucket.consume('k'));
    }
  });

  it('takes each shorthand option over its default, and name, store and clock as given', () => {
    const store = new MemoryStore();
    const clock = new ManualClock();
    const bucket = choose({ capacity: 5, name: 'api', store, clock }) as TokenBucketLimiter;
    expect(bucket.policy).toMatchObject({ capacity: 5, refillPerSecond: 1, name: 'api' });
    expect([bucket.store, bucket.clock]).toEqual([store, clock]);
    expect(choose({ refillPerSecond: 4 }).policies[0]).toMatchObject({ capacity: 60, refillPerSecond: 4 });
    expect(choose({ algorithm: 'sliding-window', limit: 100, windowMs: 1000 }).policies[0]).toMatchObject({ limit: 100, windowMs: 1000 });
    expect(choose({ algorithm: 'fixed-window', windowMs: 1000 }).policies[0]).toMatchObject({ limit: 60, windowMs: 1000 });
    expect(choose({ algorithm: 'sliding-log', limit: 7 }).policies[0]).toMatchObject({ algorithm: 'sliding-log', limit: 7, windowMs: 60_000 });
  });

  it('never changes the caller’s options', () => {
    const options = Object.freeze({ algorithm: 'sliding-window', limit: 7 } as const);
    choose(options);
    expect(options).toEqual({ algorithm: 'sliding-window', limit: 7 });
  });

  it('returns a ready limiter as it is', () => {
    const limiter = new FixedWindowLimiter({ limit: 3, windowMs: 1000 });
    expect(choose({ limiter })).toBe(limiter);
    expect(prepareRateLimit(OWNER, { limiter }).limiter).toBe(limiter);
  });
});

describe('chooseLimiter refusals', () => {
  const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 });

  it.each([
    [{ limiter, capacity: 5 }, 'capacity'],
    [{ limiter, algorithm: 'token-bucket' }, 'algorithm'],
    [{ limiter, name: 'api' }, 'name'],
    [{ limiter, store: new MemoryStore() }, 'store'],
    [{ limiter, clock: new ManualClock() }, 'clock'],
    [{ limiter, algorithm: 'fixed-window', limit: 5, windowMs: 10 }, 'algorithm, limit, windowMs'],
  ])('refuses a limiter with shorthand options %#, naming both', (options, named) => {
    expect(() => choose(options)).toThrowError(new TypeError(`rateLimit: give either limiter or algorithm options, not both (got limiter and ${named})`));
  });

  it.each([
    [{ algorithm: 'token-bucket', limit: 5 }, 'limit', 'token-bucket'],
    [{ capacity: 5, windowMs: 1000 }, 'windowMs', 'token-bucket'],
    [{ algorithm: 'sliding-window', capacity: 5 }, 'capacity', 'sliding-window'],
    [{ algorithm: 'fixed-window', refillPerSecond: 2 }, 'refillPerSecond', 'fixed-window'],
    [{ algorithm: 'gcra', capacity: 5 }, 'capacity', 'gcra'],
    [{ algorithm: 'token-bucket', burst: 5 }, 'burst', 'token-bucket'],
    [{ algorithm: 'sliding-log', emissionIntervalMs: 5 }, 'emissionIntervalMs', 'sliding-log'],
  ])('refuses %o: an option foreign to the algorithm', (options, option, algorithm) => {
    expect(() => choose(options)).toThrow(TypeError);
    expect(() => choose(options)).toThrow(`rateLimit: ${option} does not apply to algorithm '${algorithm}'`);
  });

  it.each([
    [
      { algorithm: 'token-bucket', limit: 5 },
      "rateLimit: limit does not apply to algorithm 'token-bucket' ('token-bucket', takes capacity and refillPerSecond; to use limit, pick an algorithm that takes it: 'sliding-window', 'fixed-window', 'first-request-window', 'sliding-log', 'concurrency')",
    ],
    [
      { capacity: 5, windowMs: 1000 },
      "rateLimit: windowMs does not apply to algorithm 'token-bucket' (the default, 'token-bucket', takes capacity and refillPerSecond; to use windowMs, pick an algorithm that takes it: 'sliding-window', 'fixed-window', 'first-request-window', 'sliding-log')",
    ],
    [
      { algorithm: 'gcra', capacity: 5 },
      "rateLimit: capacity does not apply to algorithm 'gcra' ('gcra', takes emissionIntervalMs and burst; to use capacity, pick an algorithm that takes it: 'token-bucket')",
    ],
    [
      { windowMs: 60_000, limit: 100, capacity: 5 },
      "rateLimit: capacity does not go with limit and windowMs: capacity is an option of 'token-bucket'; drop it, or name the algorithm and give only its sizes",
    ],
    [
      { capacity: 5, refillPerSecond: 1, limit: 100 },
      "rateLimit: limit does not apply to algorithm 'token-bucket' (the default, 'token-bucket', takes capacity and refillPerSecond; to use limit, pick an algorithm that takes it: 'sliding-window', 'fixed-window', 'first-request-window', 'sliding-log', 'concurrency')",
    ],
  ])('says what to write instead of %o', (options, message) => {
    expect(() => choose(options)).toThrowError(new TypeError(message));
  });

  it.each([
    [
      { windowMs: 900_000, limit: 100 },
      { algorithm: 'first-request-window', limit: 100, windowMs: 900_000 },
    ],
    [{ limit: 5 }, { algorithm: 'first-request-window', limit: 5, windowMs: 60_000 }],
    [{ windowMs: 1000 }, { algorithm: 'first-request-window', limit: 60, windowMs: 1000 }],
    [{}, { algorithm: 'token-bucket', capacity: 60 }],
  ])('without algorithm, %o builds the window express-rate-limit users expect', (options, policy) => {
    expect(choose(options).policies[0]).toMatchObject(policy);
  });

  it.each([
    ['constructor', '"constructor"'],
    ['__proto__', '"__proto__"'],
    ['toString', '"toString"'],
    ['hasOwnProperty', '"hasOwnProperty"'],
    ['nope', '"nope"'],
    ['Token-Bucket', '"Token-Bucket"'],
    ['', '""'],
    [5, '5'],
    [true, 'true'],
    [{}, 'an object'],
  ])('refuses algorithm %o, naming it', (algorithm, shown) => {
    expect(() => choose({ algorithm })).toThrowError(
      new TypeError(`rateLimit: algorithm must be 'token-bucket', 'sliding-window', 'fixed-window', 'first-request-window', 'sliding-log', 'gcra' or 'concurrency', got ${shown}`),
    );
  });

  it.each(['limiter', 'algorithm', 'capacity', 'refillPerSecond', 'limit', 'windowMs', 'emissionIntervalMs', 'burst', 'name', 'store', 'clock'])(
    'refuses %s: null rather than reading it as the default',
    (option) => {
      expect(() => choose({ [option]: null })).toThrowError(new TypeError(`rateLimit: ${option} must not be null (leave it out for the default)`));
    },
  );

  it.each([
    [{}, 'an object'],
    [{ consume: () => undefined }, 'an object'],
    [{ policies: [] }, 'an object'],
    [() => undefined, 'a function'],
    ['limiter', '"limiter"'],
  ])('refuses a limiter that is not a RateLimiter: %o', (bad, shown) => {
    expect(() => choose({ limiter: bad })).toThrowError(new TypeError(`rateLimit: limiter must be a ratekeeper RateLimiter, got ${shown}`));
  });

  it('lets the limiters refuse bad numbers and names with their own errors', () => {
    expect(() => choose({ capacity: 0 })).toThrowError(new RangeError('TokenBucketLimiter: capacity must be a positive integer, got 0'));
    expect(() => choose({ refillPerSecond: Number.NaN })).toThrowError(RangeError);
    expect(() => choose({ algorithm: 'sliding-window', limit: 1.5 })).toThrowError(new RangeError('SlidingWindowLimiter: limit must be a positive integer, got 1.5'));
    expect(() => choose({ algorithm: 'fixed-window', windowMs: '60s' })).toThrowError(new TypeError('FixedWindowLimiter: windowMs must be a positive integer, got "60s"'));
    expect(() => choose({ name: 'a b' })).toThrowError(RangeError);
  });
});
