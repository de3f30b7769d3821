/**
 * Options are validated when rateLimit is called, by core as on every adapter (a TypeError for a
 * type, a RangeError for a number, naming the option and the value; the caller's options never
 * mutated), and the options tRPC has no use for are refused with what to write instead. (The adapter
 * contract's validationSuite takes a `handler` option; tRPC answers a denial with a TRPCError.)
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) });

describe('rateLimit options', () => {
  it.each([
    [{ algorithm: 'sliding-window', limit: 0 }, RangeError, /^SlidingWindowLimiter: limit must be .+, got 0$/],
    [{ capacity: '10' }, TypeError, /^TokenBucketLimiter: capacity must be .+, got "10"$/],
    [{ algorithm: 'leaky-bucket' }, TypeError, /^rateLimit: algorithm must be 'token-bucket', .+, got "leaky-bucket"$/],
    [{ limiter, capacity: 5 }, TypeError, /^rateLimit: give either limiter or algorithm options, not both/],
    [{ key: 'ip' }, TypeError, /^rateLimit: key must be a function, got "ip"$/],
    [{ headers: true }, TypeError, /^rateLimit: headers must be 'draft-10', 'legacy', 'both' or false, got true: express-rate-limit's headers: true is headers: 'legacy'/],
    [{ ipv6Subnet: 128 }, RangeError, /^rateLimit: ipv6Subnet must be an integer from 32 to 64, got 128$/],
    [{ windowMS: 60_000 }, TypeError, /^rateLimit: unknown option "windowMS"/],
    [{ max: 100 }, TypeError, /^rateLimit: unknown option "max": ratekeeper calls it "limit"/],
    [{ handler: () => null }, TypeError, /^rateLimit: unknown option "handler": a denial is a TRPCError \(TOO_MANY_REQUESTS\); shape what the client sees with errorFormatter/],
    [{ message: 'slow down' }, TypeError, /^rateLimit: unknown option "message": a denial is a TRPCError/],
    [{ mode: 'delay' }, TypeError, /^rateLimit: unknown option "mode": tRPC calls cannot be held/],
    [{ proxyWarning: false }, TypeError, /^rateLimit: unknown option "proxyWarning": the address is the one ip\(opts\) or ctx\.req gives/],
    [{ ip: '127.0.0.1' }, TypeError, /^rateLimit: ip must be a function, got "127\.0\.0\.1"$/],
  ] as const)('refuses %j', (options, type, message) => {
    expect(() => rateLimit(options as never)).toThrow(type);
    expect(() => rateLimit(options as never)).toThrow(message);
  });

  it.each([null, 'strict', 42, []])('refuses the options value %j', (options) => {
    expect(() => rateLimit(options as never)).toThrow(/^rateLimit: options must be an object, got /);
  });

  it('accepts frozen options and leaves them as they were', () => {
    const options = Object.freeze({ algorithm: 'sliding-window', limit: 10, windowMs: 1000, headers: 'both' } as const);
    const copy = { ...options };
    expect(rateLimit(options)).toBeTypeOf('function');
    expect(options).toEqual(copy);
  });
});
