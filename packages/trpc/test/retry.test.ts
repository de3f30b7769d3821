/**
 * The denial, on the Express, Fastify and fetch adapters, on the memory store and on a real
 * redis-server: HTTP 429 with an integer Retry-After never earlier than the truth (a call 1 ms earlier
 * is denied, one at it admitted), the TRPCError's code TOO_MANY_REQUESTS with the wait in its data
 * (rateLimitErrorFormatter), the RateLimit fields on every answer, and the resolver run exactly once
 * per admitted call. The rows are the adapter contract's (retry.ts): a bucket of one token.
 */
import { STORES, runsOn, stopRedis, storeOn } from '@ratekeeper/adapter-contract';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { afterAll, describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { ADAPTERS, serveTrpc } from './support/servers.js';

afterAll(stopRedis);

describe.each(ADAPTERS)('tRPC on %s', (adapter) => {
  describe.each(STORES.filter(runsOn))('%s store', (storeName) => {
    it.each([
      { refillPerSecond: 1, wantSeconds: 1 },
      { refillPerSecond: 0.1, wantSeconds: 10 },
      { refillPerSecond: 1 / 60, wantSeconds: 60 },
    ])('answers Retry-After $wantSeconds for refill $refillPerSecond/s, denies 1 ms earlier and admits at it', async ({ refillPerSecond, wantSeconds }) => {
      const clock = new ManualClock(1_000_000);
      const { store } = await storeOn(storeName);
      const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond, name: 'api', clock, store });
      const { get, ran } = await serveTrpc(adapter, (ip) => rateLimit({ limiter, ...(ip === undefined ? {} : { ip }) }));
      const ok = await get();
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit')).toBe(`"api";r=0;t=${wantSeconds}`);
      const denied = await get();
      expect(denied.status).toBe(429);
      expect(denied.headers.get('retry-after')).toBe(String(wantSeconds));
      expect(denied.headers.get('ratelimit-policy')).toBe(`"api";q=1;w=${wantSeconds}`);
      expect(denied.body.error?.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429, retryAfterMs: wantSeconds * 1000, retryAfterSeconds: wantSeconds });
      clock.advance(wantSeconds * 1000 - 1);
      const early = await get();
      expect([early.status, early.headers.get('retry-after')]).toEqual([429, '1']);
      clock.advance(1);
      expect((await get()).status).toBe(200);
      expect(ran.hello).toBe(2);
    });
  });

  it('rounds a fractional wait up: 667 ms is Retry-After 1, and the retry at 1 s is admitted', async () => {
    const clock = new ManualClock(0);
    const { get } = await serveTrpc(adapter, (ip) => rateLimit({ capacity: 1, refillPerSecond: 1.5, clock, ...(ip === undefined ? {} : { ip }) }));
    expect((await get()).status).toBe(200);
    const denied = await get();
    expect([denied.status, denied.headers.get('retry-after'), denied.body.error?.data?.['retryAfterMs']]).toEqual([429, '1', 667]);
    clock.advance(1000);
    expect((await get()).status).toBe(200);
  });

  it('the client sees TOO_MANY_REQUESTS and the wait in error.data', async () => {
    const { client } = await serveTrpc(adapter, (ip) => rateLimit({ capacity: 1, refillPerSecond: 0.5, clock: new ManualClock(0), ...(ip === undefined ? {} : { ip }) }));
    expect(await client.hello.query()).toBe('world');
    await expect(client.hello.query()).rejects.toMatchObject({ data: { code: 'TOO_MANY_REQUESTS', retryAfterSeconds: 2 }, message: 'Rate limit exceeded: retry after 2 s' });
  });
});
