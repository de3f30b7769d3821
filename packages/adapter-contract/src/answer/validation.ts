/**
 * Options are validated when rateLimit is called: a TypeError for a wrong type, a RangeError for a
 * number out of range, each naming the option and the value. The caller's options are never mutated.
 * The options go to the adapter's rateLimit untranslated, since wrong types are the point.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { expect, it } from 'vitest';

const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) });

/** validationSuite runs inside the caller's describe; `rateLimit` is the adapter's, typed loosely. */
export function validationSuite(rateLimit: (options?: never) => unknown): void {
  const create = (options: unknown) => () => (rateLimit as (options: unknown) => unknown)(options);
  it.each([
    // The limiter's own options are checked by the core limiter, which names itself: the adapter
    // only has to let that error out at creation.
    [{ algorithm: 'sliding-window', limit: 0 }, RangeError, /^SlidingWindowLimiter: limit must be .+, got 0$/],
    [{ algorithm: 'sliding-window', windowMs: 1.5 }, RangeError, /^SlidingWindowLimiter: windowMs must be .+, got 1\.5$/],
    [{ capacity: Number.NaN }, RangeError, /^TokenBucketLimiter: capacity must be .+, got NaN$/],
    [{ refillPerSecond: -1 }, RangeError, /^TokenBucketLimiter: refillPerSecond must be .+, got -1$/],
    [{ capacity: '10' }, TypeError, /^TokenBucketLimiter: capacity must be .+, got "10"$/],
    [
      { algorithm: 'leaky-bucket' },
      TypeError,
      "rateLimit: algorithm must be 'token-bucket', 'sliding-window', 'fixed-window', 'first-request-window', 'sliding-log', 'gcra' or 'concurrency', got \"leaky-bucket\"",
    ],
    [
      { algorithm: 'token-bucket', limit: 5 },
      TypeError,
      "rateLimit: limit does not apply to algorithm 'token-bucket' ('token-bucket', takes capacity and refillPerSecond; to use limit, pick",
    ],
    [{ capacity: 5, windowMs: 1000 }, TypeError, "rateLimit: windowMs does not apply to algorithm 'token-bucket' (the default, 'token-bucket'"],
    [{ limiter, capacity: 5 }, TypeError, 'rateLimit: give either limiter or algorithm options, not both (got limiter and capacity)'],
    [{ limiter: {} }, TypeError, 'rateLimit: limiter must be a ratekeeper RateLimiter, got an object'],
    [{ handler: 'Too many requests' }, TypeError, 'rateLimit: handler must be a function, got "Too many requests"'],
    [{ key: 'ip' }, TypeError, 'rateLimit: key must be a function, got "ip"'],
    [{ cost: 2 }, TypeError, 'rateLimit: cost must be a function, got 2'],
    [{ skip: true }, TypeError, 'rateLimit: skip must be a function, got true'],
    [{ onDecision: null }, TypeError, 'rateLimit: onDecision must be a function, got null'],
    [{ headers: 'draft-7' }, TypeError, "rateLimit: headers must be 'draft-10', 'legacy', 'both' or false, got \"draft-7\""],
    [{ headers: true }, TypeError, "rateLimit: headers must be 'draft-10', 'legacy', 'both' or false, got true"],
    [{ ipv6Subnet: 128 }, RangeError, 'rateLimit: ipv6Subnet must be an integer from 32 to 64, got 128'],
    [{ ipv6Subnet: '56' }, TypeError, 'rateLimit: ipv6Subnet must be an integer from 32 to 64, got "56"'],
    [{ missingIp: 'allow' }, TypeError, "rateLimit: missingIp must be 'reject' or 'skip', got \"allow\""],
    [{ shadow: 'yes' }, TypeError, 'rateLimit: shadow must be a boolean, got "yes"'],
    [{ abandonedMs: -1 }, RangeError, 'rateLimit: abandonedMs must be a whole number of milliseconds from 0 to 2147483647, or Infinity, got -1'],
    [{ abandonedMs: '60s' }, TypeError, 'rateLimit: abandonedMs must be a whole number of milliseconds from 0 to 2147483647, or Infinity, got "60s"'],
    [{ windowMS: 60_000 }, TypeError, 'rateLimit: unknown option "windowMS"'],
    [{ max: 100 }, TypeError, /^rateLimit: unknown option "max"(?: of @ratekeeper\/[\w-]+)?: ratekeeper calls it "limit"/],
    [{ keyGenerator: () => 'k' }, TypeError, /^rateLimit: unknown option "keyGenerator"(?: of @ratekeeper\/[\w-]+)?: (?:@ratekeeper\/[\w-]+|this adapter) calls it "key"/],
    [{ standardHeaders: 'draft-7' }, TypeError, /^rateLimit: unknown option "standardHeaders"(?: of @ratekeeper\/[\w-]+)?: ratekeeper calls it "headers": 'draft-10'/],
  ] as const)('rejects %j', (options, type, message) => {
    expect(create(options)).toThrow(type);
    expect(create(options)).toThrow(message);
  });

  it.each([null, 'strict', 42, [], () => ({})])('rejects the options value %j', (options) => {
    expect(create(options)).toThrow(TypeError);
    expect(create(options)).toThrow(/^rateLimit: options must be an object, got /);
  });

  it('accepts frozen options and leaves them as they were', () => {
    const options = Object.freeze({ algorithm: 'sliding-window', limit: 10, windowMs: 1000, headers: 'both', shadow: false } as const);
    const copy = { ...options };
    expect(create(options)()).toBeTypeOf('function');
    expect(options).toEqual(copy);
  });
}
