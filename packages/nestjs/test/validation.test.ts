/**
 * Options are validated when the application starts (RateLimitModule's limits, every decorated
 * handler's), never per call: a TypeError for a wrong type, a RangeError for a number out of range,
 * `RateLimitModule: option must be …, got …` or `@RateLimit on Class.handler: …`. @nestjs/throttler's
 * names are taken where they mean the same and refused, with what to write instead, where they do not.
 * The caller's options are never mutated.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule, type RateLimitModuleOptions, SkipRateLimit } from '../src/index.js';
import { RateLimits } from '../src/limits.js';

const create = (options: unknown) => () => new RateLimits(options as RateLimitModuleOptions);
const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) });

describe('RateLimitModule options', () => {
  it.each([
    [{ algorithm: 'sliding-window', limit: 0 }, RangeError, /^SlidingWindowLimiter: limit must be .+, got 0$/],
    [{ capacity: '10' }, TypeError, /^TokenBucketLimiter: capacity must be .+, got "10"$/],
    [{ limiter, capacity: 5 }, TypeError, 'RateLimitModule: give either limiter or algorithm options, not both (got limiter and capacity)'],
    [{ key: 'ip' }, TypeError, 'RateLimitModule: key must be a function, got "ip"'],
    [{ headers: 'draft-7' }, TypeError, "RateLimitModule: headers must be 'draft-10', 'legacy', 'both' or false, got \"draft-7\""],
    [{ windowMS: 60_000 }, TypeError, 'RateLimitModule: unknown option "windowMS"'],
    [{ max: 100 }, TypeError, 'RateLimitModule: unknown option "max": ratekeeper calls it "limit"'],
    // @nestjs/throttler's names with no equivalent: refused with what to write.
    [{ ttl: 1000, limit: 3, ignoreUserAgents: [/bot/] }, TypeError, 'RateLimitModule: unknown option "ignoreUserAgents": write it as skip: skip: (req) =>'],
    [{ generateKey: () => 'k' }, TypeError, 'RateLimitModule: unknown option "generateKey": write the caller\'s key with "key"'],
    [{ storage: {} }, TypeError, 'RateLimitModule: unknown option "storage": ratekeeper calls it "store"'],
    [{ throttlers: [] }, TypeError, 'RateLimitModule: unknown option "throttlers": ratekeeper calls them "limits"'],
    [{ errorMessage: 'slow down' }, TypeError, 'RateLimitModule: unknown option "errorMessage": catch RateLimitException in an exception filter'],
    [{ setHeaders: false }, TypeError, 'RateLimitModule: unknown option "setHeaders": ratekeeper calls it "headers": headers: false'],
    [{ message: 'slow down' }, TypeError, 'RateLimitModule: unknown option "message": catch RateLimitException in an exception filter'],
    // Throttler's names taken, checked as ratekeeper's.
    [{ ttl: () => 1000, limit: 3 }, TypeError, 'RateLimitModule: ttl must be a number of milliseconds, got a function'],
    [{ ttl: 1000, limit: () => 3 }, TypeError, 'RateLimitModule: limit must be a number, got a function'],
    [{ ttl: 1000, windowMs: 1000, limit: 3 }, TypeError, 'RateLimitModule: give ttl or windowMs, not both'],
    [{ ttl: 0, limit: 3 }, RangeError, /^SlidingLogLimiter: windowMs must be .+, got 0$/],
    [{ ttl: 1000, limit: 3, blockDuration: -5 }, RangeError, 'RateLimitModule: blockDuration must be a positive integer of milliseconds, got -5'],
    [{ getTracker: () => 'k', key: () => 'k' }, TypeError, 'RateLimitModule: give key or getTracker, not both'],
    [{ skipIf: true }, TypeError, 'RateLimitModule: skipIf must be a function, got true'],
    // The limits themselves.
    [[], TypeError, 'RateLimitModule: the array of limits is empty'],
    [
      [
        { name: 'a', limit: 1, ttl: 1000 },
        { name: 'a', limit: 2, ttl: 1000 },
      ],
      TypeError,
      'RateLimitModule: limits[1] ("a"): two limits are named "a"; name each one',
    ],
    [[{ name: 'short', ttl: 1000, limit: 'x' }], TypeError, /^SlidingLogLimiter: limit must be .+, got "x"$/],
    [{ limits: 'short' }, TypeError, 'RateLimitModule: limits must be a non-empty array of limit options, got "short"'],
    [{ limits: [{ name: 7, limit: 1, windowMs: 1000 }] }, TypeError, 'RateLimitModule: limits[0]: name must be a non-empty string, got 7'],
  ] as const)('refuses %j', (options, type, message) => {
    expect(create(options)).toThrow(type);
    expect(create(options)).toThrow(message);
  });

  it.each([null, 'strict', 42, () => ({})])('refuses the options value %j', (options) => {
    expect(create(options)).toThrow(
      new TypeError(`RateLimitModule: options must be an object, got ${options === null ? 'null' : typeof options === 'function' ? 'a function' : JSON.stringify(options)}`),
    );
  });

  it('takes throttler forms: { ttl, limit } as an exact sliding log, blockDuration as a ban, named limits in an array', () => {
    const [one] = new RateLimits({ ttl: 60_000, limit: 10 }).limits;
    expect(one?.prepared.limiter.policies.map((p) => [p.algorithm, p.limit, p.windowMs])).toEqual([['sliding-log', 10, 60_000]]);
    const [banned] = new RateLimits({ ttl: 1000, limit: 3, blockDuration: 60_000 }).limits;
    expect(banned?.prepared.limiter).toHaveProperty('banMs', 60_000);
    const named = new RateLimits([
      { name: 'short', ttl: 1000, limit: 3 },
      { name: 'long', ttl: 60_000, limit: 100 },
    ]).limits;
    expect(named.map((l) => [l.name, l.prepared.limiter.policies[0]?.name])).toEqual([
      ['short', 'short'],
      ['long', 'long'],
    ]);
  });

  it('leaves frozen options as they were', () => {
    const options = Object.freeze({ limits: Object.freeze([Object.freeze({ name: 'short', ttl: 1000, limit: 3 })]), headers: 'both' } as const);
    const copy = JSON.stringify(options);
    expect(new RateLimits(options).limits).toHaveLength(1);
    expect(JSON.stringify(options)).toBe(copy);
  });
});

describe('the decorators', () => {
  it('refuse a shape that is neither options nor named limits, when applied', () => {
    expect(() => RateLimit('fast' as never)).toThrow(new TypeError('@RateLimit: options must be an object, got "fast"'));
    expect(() => RateLimit({ short: 5 } as never)).toThrow(/^@RateLimit: "short" is neither an option nor a limit's options \(got 5\)/);
    expect(() => SkipRateLimit({ short: 'yes' } as never)).toThrow(new TypeError('@SkipRateLimit: short must be a boolean, got "yes"'));
  });

  it("fail the application's start, naming the handler, for an invalid limit", async () => {
    @Controller()
    class BadController {
      @RateLimit({ limit: -1, windowMs: 1000 })
      @Get('/')
      find(): string {
        return 'ok';
      }
    }
    @Module({ imports: [RateLimitModule.forRoot()], controllers: [BadController], providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }] })
    class BadModule {}
    const app = await NestFactory.create(BadModule, { logger: false, abortOnError: false });
    await expect(app.init()).rejects.toThrow(/^@RateLimit on BadController\.find: FirstRequestWindowLimiter: limit must be .+, got -1$/);
  });
});
