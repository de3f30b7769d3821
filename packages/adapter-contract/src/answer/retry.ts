/**
 * The limited response: 429 with an integer Retry-After that is never earlier than the truth, a
 * problem+json body, and an app handler that runs exactly as often as requests are admitted.
 */
import { CompositeLimiter, ManualClock, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Driver } from '../driver.js';
import { expectPrintableHeaders } from '../support.js';

export function retrySuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      // Each row: a bucket of one token refilled at `refillPerSecond`, so the true wait is `wantSeconds`.
      it.each([
        { refillPerSecond: 1, wantSeconds: 1 },
        { refillPerSecond: 0.5, wantSeconds: 2 },
        { refillPerSecond: 0.1, wantSeconds: 10 },
        { refillPerSecond: 1 / 60, wantSeconds: 60 },
      ])('answers Retry-After $wantSeconds for refill $refillPerSecond/s, denies 1 ms earlier and admits at it', async ({ refillPerSecond, wantSeconds }) => {
        const clock = new ManualClock(1_000_000);
        const { http } = driver.serve({ limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond, clock }) });
        expect((await http.get('/')).status).toBe(200);
        const denied = await http.get('/');
        expect(denied.status).toBe(429);
        expect(denied.headers['retry-after']).toBe(String(wantSeconds));
        expectPrintableHeaders(denied.headers);
        clock.advance(wantSeconds * 1000 - 1);
        const early = await http.get('/');
        expect(early.status).toBe(429);
        expect(early.headers['retry-after']).toBe('1');
        clock.advance(1);
        expect((await http.get('/')).status).toBe(200);
      });

      it('rounds a fractional wait up: 667 ms becomes Retry-After 1, and the retry at 1 s is admitted', async () => {
        const clock = new ManualClock(0);
        const { http } = driver.serve({ limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1.5, clock }) });
        await http.get('/').expect(200);
        await http.get('/').expect(429).expect('Retry-After', '1');
        clock.advance(1000);
        await http.get('/').expect(200);
      });

      it('answers the composite wait of the member that blocks longest, and admits exactly then', async () => {
        const clock = new ManualClock(0);
        const burst = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'burst', clock });
        const minute = new SlidingWindowLimiter({ limit: 3, windowMs: 60_000, name: 'minute', clock });
        const { http } = driver.serve({ limiter: new CompositeLimiter([burst, minute]) });
        for (let i = 0; i < 3; i++, clock.advance(1000)) await http.get('/').expect(200);
        const denied = await http.get('/').expect(429).expect('Retry-After', '77');
        // The burst member would admit, so it reports what it holds as it stands: full, 0 s to full.
        expect(denied.headers['ratelimit']).toBe('"burst";r=2;t=0, "minute";r=0;t=77');
        expect(denied.headers['ratelimit-policy']).toBe('"burst";q=2;w=2, "minute";q=3;w=60');
        expect(JSON.parse(denied.text)['violated-policies']).toEqual(['minute']);
        clock.advance(76_999);
        await http.get('/').expect(429);
        clock.advance(1);
        await http.get('/').expect(200);
      });

      it('answers a problem+json body naming the violated policy', async () => {
        const clock = new ManualClock(0);
        const { http } = driver.serve({ limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 0.5, name: 'api', clock }) });
        await http.get('/').expect(200);
        const denied = await http
          .get('/')
          .expect(429)
          .expect('Content-Type', driver.problemContentType ?? 'application/problem+json');
        expect(JSON.parse(denied.text)).toEqual({
          type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
          title: 'Request cannot be satisfied as assigned quota has been exceeded',
          status: 429,
          detail: 'Retry after 2 s.',
          'violated-policies': ['api'],
        });
        expect(denied.headers['content-length']).toBe(String(Buffer.byteLength(denied.text)));
      });

      it('runs the app handler once per admitted request and never for a limited one', async () => {
        const clock = new ManualClock(0);
        const { http, ran } = driver.serve({ limiter: new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock }) });
        const statuses: number[] = [];
        for (let i = 0; i < 10; i++) statuses.push((await http.get('/')).status);
        expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
        expect(ran()).toBe(3);
        clock.advance(1000);
        await http.get('/').expect(200);
        expect(ran()).toBe(4);
      });
    });
  }
}
