/**
 * The per-request options (skip, key, cost, handler, onDecision, shadow), the header styles and the
 * algorithm shorthands, each through a real app of the driver's framework; with it, the handler's
 * preset status (handler-status.ts).
 */
import { type Decision, ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Answer, Driver } from '../driver.js';
import { handlerStatusSuite } from './handler-status.js';
import { counting, expectPrintableHeaders } from '../support.js';

const bucket = (capacity: number, clock = new ManualClock(0)) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock });

export function optionsSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      it('skip lets a request through uncounted and without headers', async () => {
        const counted = counting(bucket(1));
        const { http, ran } = driver.serve({ limiter: counted.limiter, skip: (req) => req.header('x-internal') === 'yes' });
        for (let i = 0; i < 3; i++) {
          const res = await http.get('/').set('X-Internal', 'yes').expect(200);
          expect(res.headers['ratelimit']).toBeUndefined();
        }
        await http.get('/').expect(200);
        await http.get('/').expect(429);
        expect(counted.keys).toHaveLength(2);
        expect(ran()).toBe(4);
      });

      it('key counts each API key in its own bucket', async () => {
        const counted = counting(bucket(1));
        const { http } = driver.serve({ limiter: counted.limiter, key: (req) => `api:${req.header('x-api-key') ?? 'none'}` });
        await http.get('/').set('X-Api-Key', 'a').expect(200);
        await http.get('/').set('X-Api-Key', 'b').expect(200);
        await http.get('/').set('X-Api-Key', 'a').expect(429);
        expect(counted.keys).toEqual(['api:a', 'api:b', 'api:a']);
      });

      it('cost charges each request its weight and answers a never-satisfiable cost without Retry-After', async () => {
        const counted = counting(bucket(5));
        const { http, ran } = driver.serve({ limiter: counted.limiter, cost: (req) => Number(req.query('n')) });
        await http.get('/?n=3').expect(200).expect('RateLimit', '"b";r=2;t=3');
        await http.get('/?n=3').expect(429).expect('Retry-After', '1');
        await http.get('/?n=2').expect(200).expect('RateLimit', '"b";r=0;t=5');
        const never = await http.get('/?n=6').expect(429);
        expect(never.headers['retry-after']).toBeUndefined();
        expect(JSON.parse(never.text).detail).toBe('The request costs more than the policy can ever grant.');
        expect(counted.costs).toEqual([3, 3, 2, 6]);
        expect(ran()).toBe(2);
      });

      it.each(['sync', 'async'] as const)('a %s handler answers a limited request after the headers are written', async (style) => {
        const seen: Decision[] = [];
        const answer = (decision: Decision): Answer => {
          seen.push(decision);
          return { status: 429, body: { error: 'slow down', retryAfterMs: decision.retryAfterMs } };
        };
        const { http } = driver.serve({ limiter: bucket(1), handler: style === 'sync' ? answer : async (d) => (await Promise.resolve(), answer(d)) });
        await http.get('/').expect(200);
        const res = await http.get('/').expect(429).expect('Retry-After', '1').expect('RateLimit', '"b";r=0;t=1');
        expect(res.body).toEqual({ error: 'slow down', retryAfterMs: 1000 });
        expect(seen.map((d) => d.allowed)).toEqual([false]);
      });

      it('an async handler that rejects goes to the error path', async () => {
        const { http, errors } = driver.serve({ limiter: bucket(1), handler: async () => Promise.reject(new Error('handler broke')) });
        await http.get('/').expect(200);
        await http.get('/').expect(500);
        await http.get('/').expect(500);
        expect(errors.map((e) => (e as Error).message)).toEqual(['handler broke', 'handler broke']);
      });

      it('shadow mode never blocks, still writes headers, and reports denials to onDecision', async () => {
        const decisions: [boolean, string][] = [];
        const { http, ran } = driver.serve({ limiter: bucket(2), shadow: true, onDecision: (d, req) => void decisions.push([d.allowed, req.path]) });
        const remaining: string[] = [];
        for (let i = 0; i < 4; i++) {
          const res = await http.get('/').expect(200);
          remaining.push(res.headers['ratelimit'] as string);
          expectPrintableHeaders(res.headers);
        }
        expect(remaining).toEqual(['"b";r=1;t=1', '"b";r=0;t=2', '"b";r=0;t=1', '"b";r=0;t=1']);
        expect(decisions).toEqual([
          [true, '/'],
          [true, '/'],
          [false, '/'],
          [false, '/'],
        ]);
        expect(ran()).toBe(4);
      });

      headerStyles(driver);
      shorthands(driver);
    });
  }
  handlerStatusSuite(drivers);
}

function headerStyles<F>(driver: Driver<F>): void {
  it.each([
    { headers: undefined, present: ['ratelimit-policy', 'ratelimit'], absent: ['x-ratelimit-limit'] },
    { headers: 'draft-10', present: ['ratelimit-policy', 'ratelimit'], absent: ['x-ratelimit-limit'] },
    { headers: 'legacy', present: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'], absent: ['ratelimit'] },
    { headers: 'both', present: ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit'], absent: [] },
    { headers: false, present: [], absent: ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit'] },
  ] as const)('headers: $headers writes $present', async ({ headers, present, absent }) => {
    const { http } = driver.serve({ limiter: bucket(1), ...(headers === undefined ? {} : { headers }) });
    for (const res of [await http.get('/').expect(200), await http.get('/').expect(429)]) {
      for (const name of present) expect(res.headers[name], name).toBeDefined();
      for (const name of absent) expect(res.headers[name], name).toBeUndefined();
      if (res.status === 429) expect(res.headers['retry-after']).toBe('1');
    }
  });

  it('legacy headers carry the limit, whole units left and delta seconds to reset', async () => {
    const { http } = driver.serve({ limiter: bucket(3), headers: 'legacy' });
    await http.get('/').expect('X-RateLimit-Limit', '3').expect('X-RateLimit-Remaining', '2').expect('X-RateLimit-Reset', '1');
    await http.get('/').expect('X-RateLimit-Limit', '3').expect('X-RateLimit-Remaining', '1').expect('X-RateLimit-Reset', '2');
  });
}

function shorthands<F>(driver: Driver<F>): void {
  it("rateLimit({ algorithm: 'token-bucket' }) works with its documented defaults", async () => {
    const { http } = driver.serve({ algorithm: 'token-bucket', clock: new ManualClock(0) });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await http.get('/')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses[60]).toBe(429);
    const bare = driver.serve({ algorithm: 'token-bucket' });
    await bare.http.get('/').expect(200).expect('RateLimit-Policy', '"tb-60-1";q=60;w=60');
  });

  it("rateLimit({ algorithm: 'sliding-window', limit: 100, windowMs: 60_000 }) admits exactly 100 per window", async () => {
    const { http } = driver.serve({ algorithm: 'sliding-window', limit: 100, windowMs: 60_000, clock: new ManualClock(0) });
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) statuses.push((await http.get('/')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses[100]).toBe(429);
    const bare = driver.serve({ algorithm: 'sliding-window', limit: 100, windowMs: 60_000 });
    await bare.http.get('/').expect(200).expect('RateLimit-Policy', '"sw-100-60000";q=100;w=60');
  });

  // The peers' window (express-rate-limit, @fastify/rate-limit, rate-limiter-flexible): it starts at
  // the key's first request, so Retry-After runs to the end of that client's own window, never to a
  // clock boundary. The clock starts 7 s into an aligned 10 s window, where a fixed window says 3.
  // Per route: ./first-request-routes.ts.
  it("rateLimit({ windowMs, limit }) starts the client's window at its first request; 'fixed-window' stays aligned", async () => {
    const clock = new ManualClock(1_700_000_007_000);
    const { http } = driver.serve({ windowMs: 10_000, limit: 2, clock });
    await http.get('/').expect(200).expect('RateLimit', '"frw-2-10000";r=1;t=10').expect('RateLimit-Policy', '"frw-2-10000";q=2;w=10');
    clock.advance(2000);
    await http.get('/').expect(200).expect('RateLimit', '"frw-2-10000";r=0;t=8');
    await http.get('/').expect(429).expect('Retry-After', '8');
    clock.advance(7999);
    await http.get('/').expect(429).expect('Retry-After', '1');
    clock.advance(1);
    await http.get('/').expect(200).expect('RateLimit', '"frw-2-10000";r=1;t=10');

    const aligned = driver.serve({ algorithm: 'fixed-window', windowMs: 10_000, limit: 1, clock: new ManualClock(1_700_000_007_000) });
    await aligned.http.get('/').expect(200);
    await aligned.http.get('/').expect(429).expect('Retry-After', '3');
  });

  it("rateLimit({ algorithm: 'sliding-log', limit: 5, windowMs: 1000 }) admits 5 in any second, the 6th when the oldest leaves", async () => {
    const clock = new ManualClock(900);
    const { http } = driver.serve({ algorithm: 'sliding-log', limit: 5, windowMs: 1000, clock });
    for (let i = 0; i < 5; i++) await http.get('/').expect(200);
    clock.set(1000); // a new aligned second: a fixed window would admit 5 more here
    await http.get('/').expect(429).expect('Retry-After', '1');
    clock.set(1899);
    await http.get('/').expect(429);
    clock.set(1900);
    await http.get('/').expect(200).expect('RateLimit-Policy', '"sl-5-1000";q=5;w=1');
  });
}
