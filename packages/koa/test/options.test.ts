/**
 * The per-request options (skip, key, cost, handler, onDecision, shadow) and the header styles, each
 * through a real Koa app.
 */
import { type Decision, ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { type KoaRateLimitOptions, rateLimit } from '../src/index.js';
import { counting, expectPrintableHeaders, koas, serve } from './helpers.js';

describe.each(koas)('%s', (_, Koa) => {
  function app(options: KoaRateLimitOptions) {
    const a = new Koa();
    let ran = 0;
    a.use(rateLimit(options));
    a.use((ctx) => {
      ran++;
      ctx.body = 'ok';
    });
    return { ...serve(a), ran: () => ran };
  }
  const bucket = (capacity: number, clock = new ManualClock(0)) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock });

  it('skip lets a request through uncounted and without headers', async () => {
    const counted = counting(bucket(1));
    const { http, ran } = app({ limiter: counted.limiter, skip: (ctx) => ctx.get('x-internal') === 'yes' });
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
    const { http } = app({ limiter: counted.limiter, key: (ctx) => `api:${ctx.get('x-api-key') || 'none'}` });
    await http.get('/').set('X-Api-Key', 'a').expect(200);
    await http.get('/').set('X-Api-Key', 'b').expect(200);
    await http.get('/').set('X-Api-Key', 'a').expect(429);
    expect(counted.keys).toEqual(['api:a', 'api:b', 'api:a']);
  });

  it('cost charges each request its weight and answers a never-satisfiable cost without Retry-After', async () => {
    const counted = counting(bucket(5));
    const { http, ran } = app({ limiter: counted.limiter, cost: (ctx) => Number(ctx.query['n']) });
    await http.get('/?n=3').expect(200).expect('RateLimit', '"b";r=2;t=3');
    await http.get('/?n=3').expect(429).expect('Retry-After', '1');
    await http.get('/?n=2').expect(200).expect('RateLimit', '"b";r=0;t=5');
    const never = await http.get('/?n=6').expect(429);
    expect(never.headers['retry-after']).toBeUndefined();
    expect(JSON.parse(never.text).detail).toBe('The request costs more than the policy can ever grant.');
    expect(counted.costs).toEqual([3, 3, 2, 6]);
    expect(ran()).toBe(2);
  });

  it('handler answers a limited request after the headers are written, sync or async', async () => {
    const seen: Decision[] = [];
    const { http } = app({
      limiter: bucket(1),
      handler: async (ctx, decision) => {
        seen.push(decision);
        await Promise.resolve();
        ctx.status = 429;
        ctx.body = { error: 'slow down', retryAfterMs: decision.retryAfterMs };
      },
    });
    await http.get('/').expect(200);
    const res = await http.get('/').expect(429).expect('Retry-After', '1').expect('RateLimit', '"b";r=0;t=1');
    expect(res.body).toEqual({ error: 'slow down', retryAfterMs: 1000 });
    expect(seen.map((d) => d.allowed)).toEqual([false]);
  });

  it('an async handler that rejects goes to the error path', async () => {
    const { http, errors } = app({ limiter: bucket(1), handler: async () => Promise.reject(new Error('handler broke')) });
    await http.get('/').expect(200);
    await http.get('/').expect(500);
    await http.get('/').expect(500);
    expect(errors.map((e) => (e as Error).message)).toEqual(['handler broke', 'handler broke']);
  });

  it('shadow mode never blocks, still writes headers, and reports denials to onDecision', async () => {
    const decisions: [boolean, string][] = [];
    const { http, ran } = app({ limiter: bucket(2), shadow: true, onDecision: (d, ctx) => void decisions.push([d.allowed, ctx.path]) });
    const remaining: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await http.get('/').expect(200);
      remaining.push(res.headers['ratelimit'] as string);
      expectPrintableHeaders(res.headers);
    }
    expect(remaining).toEqual(['"b";r=1;t=1', '"b";r=0;t=2', '"b";r=0;t=1', '"b";r=0;t=1']);
    expect(decisions).toEqual([[true, '/'], [true, '/'], [false, '/'], [false, '/']]);
    expect(ran()).toBe(4);
  });

  it.each([
    { headers: undefined, present: ['ratelimit-policy', 'ratelimit'], absent: ['x-ratelimit-limit'] },
    { headers: 'draft-10', present: ['ratelimit-policy', 'ratelimit'], absent: ['x-ratelimit-limit'] },
    { headers: 'legacy', present: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'], absent: ['ratelimit'] },
    { headers: 'both', present: ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit'], absent: [] },
    { headers: false, present: [], absent: ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit'] },
  ] as const)('headers: $headers writes $present', async ({ headers, present, absent }) => {
    const { http } = app({ limiter: bucket(1), ...(headers === undefined ? {} : { headers }) });
    for (const res of [await http.get('/').expect(200), await http.get('/').expect(429)]) {
      for (const name of present) expect(res.headers[name], name).toBeDefined();
      for (const name of absent) expect(res.headers[name], name).toBeUndefined();
      if (res.status === 429) expect(res.headers['retry-after']).toBe('1');
    }
  });

  it('legacy headers carry the limit, whole units left and delta seconds to reset', async () => {
    const { http } = app({ limiter: bucket(3), headers: 'legacy' });
    await http.get('/').expect('X-RateLimit-Limit', '3').expect('X-RateLimit-Remaining', '2').expect('X-RateLimit-Reset', '1');
    await http.get('/').expect('X-RateLimit-Limit', '3').expect('X-RateLimit-Remaining', '1').expect('X-RateLimit-Reset', '2');
  });

  it("rateLimit({ algorithm: 'token-bucket' }) works with its documented defaults", async () => {
    const { http } = app({ algorithm: 'token-bucket', clock: new ManualClock(0) });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await http.get('/')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses[60]).toBe(429);
    const bare = app({ algorithm: 'token-bucket' });
    await bare.http.get('/').expect(200).expect('RateLimit-Policy', '"tb-60-1";q=60;w=60');
  });

  it("rateLimit({ algorithm: 'sliding-window', limit: 100, windowMs: 60_000 }) admits exactly 100 per window", async () => {
    const { http } = app({ algorithm: 'sliding-window', limit: 100, windowMs: 60_000, clock: new ManualClock(0) });
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) statuses.push((await http.get('/')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses[100]).toBe(429);
    const bare = app({ algorithm: 'sliding-window', limit: 100, windowMs: 60_000 });
    await bare.http.get('/').expect(200).expect('RateLimit-Policy', '"sw-100-60000";q=100;w=60');
  });
});
