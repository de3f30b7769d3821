/**
 * firstRequestRoutesSuite: `{ windowMs, limit }` mounted app-wide and on a single route each counts a
 * window that starts at the key's first request there (the peers' window), for the drivers that serve
 * routes (Fastify's per-route config and Nest's decorators have their own tests).
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, it } from 'vitest';
import type { Driver } from '../driver.js';

export function firstRequestRoutesSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      it('{ windowMs, limit } app-wide and on one route: each window starts at its own first request', async () => {
        const clock = new ManualClock(1_700_000_007_000);
        const free = new TokenBucketLimiter({ capacity: 100, refillPerSecond: 1, name: 'free', clock });
        const routes = { '/free': { limiter: free }, '/one': { windowMs: 4000, limit: 1, clock } };
        const { http } = driver.serveRoutes({ app: { windowMs: 10_000, limit: 3, clock }, routes });
        await http.get('/free').expect(200);
        await http.get('/free').expect(200);
        clock.advance(2000);
        await http.get('/one').expect(200); // the route's window starts here, 2 s into the app's
        await http.get('/free').expect(429).expect('Retry-After', '8');
        clock.advance(7999);
        await http.get('/free').expect(429).expect('Retry-After', '1');
        clock.advance(1);
        await http.get('/one').expect(200); // the app's next window; the route's first ended at +4 s
        await http.get('/one').expect(429).expect('Retry-After', '4');
      });
    });
  }
}
