/**
 * Type tests of rateLimit's options: one type per algorithm (core's LimiterChoice), so an option the
 * chosen algorithm does not take fails to compile as it fails at run time. Checked by tsc (`pnpm
 * typecheck`) and by vitest's typecheck (vitest.config.ts): an @ts-expect-error that compiles fails.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import { describe, it } from 'vitest';
import { rateLimit } from '../src/index.js';

const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 });

describe('rateLimit options', () => {
  it('takes each algorithm with its own sizes, the express-rate-limit window, a limiter or plans', () => {
    rateLimit();
    // @ts-expect-error proxyWarning is refused by the fetch adapter
    rateLimit({ proxyWarning: false });
    rateLimit({ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1, handler: () => new Response('slow down') });
    rateLimit({ windowMs: 15 * 60 * 1000, limit: 100 });
    rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 1000, key: (request) => request.headers.get('x-api-key') ?? '' });
    rateLimit({ algorithm: 'gcra', burst: 5, emissionIntervalMs: 200 });
    rateLimit({ algorithm: 'concurrency', limit: 2, retryAfterMs: 500 });
    rateLimit({ limiter, shadow: true });
    rateLimit({ plans: { free: limiter }, plan: () => 'free' });
  });

  it('refuses what run time refuses', () => {
    // @ts-expect-error limit is no 'token-bucket' option
    rateLimit({ algorithm: 'token-bucket', limit: 5 });
    // @ts-expect-error capacity is no 'sliding-log' option
    rateLimit({ algorithm: 'sliding-log', capacity: 5 });
    // @ts-expect-error shorthand sizes beside a limiter
    rateLimit({ limiter, limit: 5 });
    // @ts-expect-error max is express-rate-limit's name: ratekeeper's is limit
    rateLimit({ windowMs: 60_000, max: 100 });
    // @ts-expect-error a typo
    rateLimit({ algorithm: 'fixed-window', limt: 5 });
  });
});
