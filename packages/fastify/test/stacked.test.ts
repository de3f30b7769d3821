/**
 * Two registrations on one request (the root's and an encapsulated child context's) each add their
 * item to the draft-10 Lists, as on every other adapter: Fastify keeps one value per header field, so
 * the second limiter's items are joined to the first's with ", " (RFC 9651 §3.1: a List split over
 * field lines is the same List). A single limiter writes its items alone. Regression: the second
 * registration's `reply.header` replaced the first's items.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

describe('stacked registrations', () => {
  it('write one RateLimit and one RateLimit-Policy item per limiter, outer first', async () => {
    const clock = new ManualClock(0);
    const app = Fastify();
    await app.register(rateLimit, { limiter: new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, clock, name: 'outer' }) });
    await app.register(async (child) => {
      await child.register(rateLimit, { limiter: new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock, name: 'inner' }) });
      child.get('/inner', async () => 'in');
    });
    app.get('/outer', async () => 'out');

    const inner = await app.inject({ method: 'GET', url: '/inner' });
    expect(inner.headers['ratelimit-policy']).toBe('"outer";q=10;w=10, "inner";q=3;w=3');
    expect(inner.headers.ratelimit).toBe('"outer";r=9;t=1, "inner";r=2;t=1');
    const outer = await app.inject({ method: 'GET', url: '/outer' });
    expect(outer.headers['ratelimit-policy']).toBe('"outer";q=10;w=10');
    expect(outer.headers.ratelimit).toBe('"outer";r=8;t=2');
  });

  it('answers a denial by the inner limiter with its Retry-After and both items', async () => {
    const clock = new ManualClock(0);
    const app = Fastify();
    await app.register(rateLimit, { limiter: new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, clock, name: 'outer' }) });
    await app.register(async (child) => {
      await child.register(rateLimit, { limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock, name: 'inner' }) });
      child.get('/inner', async () => 'in');
    });
    expect((await app.inject({ method: 'GET', url: '/inner' })).statusCode).toBe(200);
    const denied = await app.inject({ method: 'GET', url: '/inner' });
    expect(denied.statusCode).toBe(429);
    expect(denied.headers['retry-after']).toBe('1');
    expect(denied.headers.ratelimit).toBe('"outer";r=8;t=2, "inner";r=0;t=1');
  });
});
