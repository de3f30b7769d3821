/**
 * The limited response and its Retry-After, through the real Fastify: 429 with an integer Retry-After
 * ≥ 1, never earlier than the truth, and a retry after that many seconds (on the ManualClock) succeeds.
 * The route handler never runs for a limited request.
 */
import { FixedWindowLimiter, ManualClock, type RateLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

interface Row {
  readonly name: string;
  readonly start: number;
  readonly make: (clock: ManualClock) => RateLimiter;
  /** Requests admitted from `start` before the first 429. */
  readonly burst: number;
  readonly retryAfter: string;
  /** The exact wait in ms: one ms before it is still limited, at it the retry is admitted. */
  readonly exactMs: number;
}

const rows: Row[] = [
  { name: 'token bucket 2, 1/s', start: 0, make: (clock) => new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock }), burst: 2, retryAfter: '1', exactMs: 1000 },
  { name: 'token bucket 1, 0.4/s', start: 0, make: (clock) => new TokenBucketLimiter({ capacity: 1, refillPerSecond: 0.4, clock }), burst: 1, retryAfter: '3', exactMs: 2500 },
  { name: 'token bucket 3, 4/s', start: 1000, make: (clock) => new TokenBucketLimiter({ capacity: 3, refillPerSecond: 4, clock }), burst: 3, retryAfter: '1', exactMs: 250 },
  { name: 'fixed window 3 per 10 s', start: 5000, make: (clock) => new FixedWindowLimiter({ limit: 3, windowMs: 10_000, clock }), burst: 3, retryAfter: '5', exactMs: 5000 },
  { name: 'sliding window 2 per 2 s', start: 0, make: (clock) => new SlidingWindowLimiter({ limit: 2, windowMs: 2000, clock }), burst: 2, retryAfter: '3', exactMs: 3000 },
];

async function appWith(limiter: RateLimiter) {
  const runs = { handler: 0 };
  const app = Fastify();
  await app.register(rateLimit, { limiter });
  app.get('/', async () => {
    runs.handler++;
    return 'ok';
  });
  return { app, runs };
}

describe.each(rows)('$name', (row) => {
  it('answers 429 with an integer Retry-After and the problem body once the burst is spent', async () => {
    const clock = new ManualClock(row.start);
    const { app, runs } = await appWith(row.make(clock));
    for (let i = 0; i < row.burst; i++) expect(`request ${i}: ${(await app.inject('/')).statusCode}`).toBe(`request ${i}: 200`);
    const limited = await app.inject('/');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe(row.retryAfter);
    expect(limited.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expect(limited.headers['content-type']).toBe('application/problem+json');
    expect(limited.json()).toMatchObject({ status: 429, type: 'https://iana.org/assignments/http-problem-types#quota-exceeded' });
    expect(runs.handler).toBe(row.burst);
  });

  it('is still limited one millisecond before the exact wait and admits the retry after Retry-After seconds', async () => {
    const clock = new ManualClock(row.start);
    const { app, runs } = await appWith(row.make(clock));
    for (let i = 0; i < row.burst; i++) await app.inject('/');
    const retryAfter = Number((await app.inject('/')).headers['retry-after']);
    expect(retryAfter * 1000).toBeGreaterThanOrEqual(row.exactMs);

    clock.set(row.start + row.exactMs - 1);
    const early = await app.inject('/');
    expect(early.statusCode).toBe(429);
    expect(Number(early.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    clock.set(row.start + retryAfter * 1000);
    expect((await app.inject('/')).statusCode).toBe(200);
    expect(runs.handler).toBe(row.burst + 1);
  });
});

describe('whole-second waits', () => {
  it('admits the retry at exactly Retry-After seconds and not one millisecond sooner', async () => {
    const clock = new ManualClock(0);
    const { app } = await appWith(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 0.5, clock }));
    await app.inject('/');
    const limited = await app.inject('/');
    expect(limited.headers['retry-after']).toBe('2');
    clock.set(1999);
    expect((await app.inject('/')).statusCode).toBe(429);
    clock.set(2000);
    expect((await app.inject('/')).statusCode).toBe(200);
  });

  it('sends no Retry-After when the cost can never be granted, and still never runs the handler', async () => {
    const clock = new ManualClock(0);
    const runs = { handler: 0 };
    const app = Fastify();
    await app.register(rateLimit, { capacity: 2, refillPerSecond: 1, clock, cost: () => 3 });
    app.get('/', async () => {
      runs.handler++;
      return 'ok';
    });
    const res = await app.inject('/');
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.json().detail).toBe('The request costs more than the policy can ever grant.');
    expect(runs.handler).toBe(0);
  });
});
