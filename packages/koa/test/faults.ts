/**
 * The fault checks, written against any middleware factory so that the same harness runs the real
 * rateLimit (which must pass) and the broken variants in test/mutants/ (each of which must fail the
 * check it targets). A check throws when the factory misbehaves.
 */
import { ManualClock, type RateLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import Koa, { type Middleware } from 'koa';
import { expect } from 'vitest';
import type { KoaRateLimitOptions } from '../src/index.js';
import { asyncLimiter, expectPrintableHeaders, serve } from './helpers.js';

export type Factory = (options: KoaRateLimitOptions) => Middleware;
export const SECRET = 'redis://admin:hunter2@10.0.0.7:6379';

function app(K: typeof Koa, factory: Factory, limiter: RateLimiter, before?: Middleware) {
  const a = new K();
  let ran = 0;
  if (before !== undefined) a.use(before);
  a.use(factory({ limiter }));
  a.use((ctx) => void (ran++, (ctx.body = 'ok')));
  return { ...serve(a), ran: () => ran };
}

const bucket = (capacity = 5) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) });

/** A limiter whose promise rejects with a secret: 500 through Koa, and the secret in no byte of it. */
export async function secretNeverLeaks(K: typeof Koa, factory: Factory): Promise<void> {
  const broken = asyncLimiter(bucket(), () => Promise.reject(new Error(`connect ECONNREFUSED ${SECRET}`)));
  const { http, errors, ran } = app(K, factory, broken);
  for (let i = 0; i < 2; i++) {
    const res = await http.get('/');
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.headers) + res.text).not.toContain('hunter2');
    expectPrintableHeaders(res.headers);
  }
  expect(errors.map((e) => (e as Error).name)).toEqual(['RateLimiterError', 'RateLimiterError']);
  expect(ran()).toBe(0);
}

/** A 'closed' store failure answers 503 with Retry-After and the temporary-reduced-capacity problem. */
export async function closedFailureIs503(K: typeof Koa, factory: Factory): Promise<void> {
  const closed = asyncLimiter(bucket(), (d) => ({ ...d, allowed: false, failure: 'closed' }));
  const { http, ran } = app(K, factory, closed);
  const res = await http.get('/');
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.headers['ratelimit-policy']).toBe('"b";q=5;w=5');
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(JSON.parse(res.text)).toEqual({
    type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
    title: 'Service temporarily unable to apply its rate limits',
    status: 503,
  });
  expect(ran()).toBe(0);
}

/** When an earlier middleware already answered on ctx.res (and wrongly went on), nothing more happens. */
export async function nothingAfterHeadersSent(K: typeof Koa, factory: Factory, limiter: RateLimiter): Promise<void> {
  const answerEarly: Middleware = async (ctx, next) => {
    ctx.respond = false;
    ctx.res.statusCode = 200;
    ctx.res.end('early');
    await next();
  };
  const { http, errors, ran } = app(K, factory, limiter, answerEarly);
  for (let i = 0; i < 7; i++) {
    const res = await http.get('/');
    expect(res.status).toBe(200);
    expect(res.text).toBe('early');
    expect(res.headers['ratelimit']).toBeUndefined();
  }
  await new Promise(setImmediate);
  expect(errors.map(String), 'errors on the error path').toEqual([]);
  expect(ran(), 'downstream runs').toBe(0);
}

export const syncBucket = (): RateLimiter => bucket();
export const asyncBucket = (): RateLimiter => asyncLimiter(bucket());
