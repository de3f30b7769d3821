/**
 * Exactly one consume per request and per mounted limiter: an app-wide limiter, a router-wide limiter
 * and a single route's limiter each count a request once, on HEAD and on 404s alike. Routers differ
 * in one respect, passed in as `routerCounts`: whether router-wide middleware runs for a path under
 * the router that matches no route (Express: yes; @koa/router: only for matched routes).
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Driver } from '../driver.js';
import { counting } from '../support.js';

const roomy = (clock: ManualClock) => new TokenBucketLimiter({ capacity: 100, refillPerSecond: 1, clock });

const TABLE = [
  { method: 'get', path: '/one', status: 200 },
  { method: 'head', path: '/one', status: 200 },
  { method: 'get', path: '/api/thing', status: 200 },
  { method: 'head', path: '/api/thing', status: 200 },
  { method: 'get', path: '/missing', status: 404 },
  { method: 'head', path: '/missing', status: 404 },
  { method: 'get', path: '/api/missing', status: 404 },
] as const;

/** routerCounts is how many of TABLE's requests the router-wide limiter counts on this framework. */
export function countingSuite<F>(drivers: readonly Driver<F>[], { routerCounts }: { routerCounts: number }): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      it('consumes once per request in each of a global, a router and a route limiter, on HEAD and on 404s', async () => {
        const clock = new ManualClock(0);
        const [global, router, route] = [counting(roomy(clock)), counting(roomy(clock)), counting(roomy(clock))];
        const { http } = driver.serveRoutes({ app: { limiter: global.limiter }, router: { limiter: router.limiter }, routes: { '/one': { limiter: route.limiter } } });
        for (const [i, row] of TABLE.entries()) {
          const res = await http[row.method](row.path);
          expect(`step ${i} ${row.method} ${row.path}: ${res.status}`).toBe(`step ${i} ${row.method} ${row.path}: ${row.status}`);
        }
        expect(global.keys).toHaveLength(7);
        expect(router.keys).toHaveLength(routerCounts);
        expect(route.keys).toHaveLength(2);
        expect(new Set([...global.keys, ...router.keys, ...route.keys])).toEqual(new Set(['127.0.0.1']));
      });

      it('lists every limiter that counted in RateLimit and RateLimit-Policy, outermost first', async () => {
        const clock = new ManualClock(0);
        const { http } = driver.serveRoutes({
          app: { limiter: new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, name: 'global', clock }) },
          routes: { '/one': { limiter: new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'route', clock }) } },
        });
        await http.get('/one').expect(200).expect('RateLimit-Policy', '"global";q=10;w=10, "route";q=2;w=2').expect('RateLimit', '"global";r=9;t=1, "route";r=1;t=1');
        await http.get('/other').expect(404).expect('RateLimit-Policy', '"global";q=10;w=10').expect('RateLimit', '"global";r=8;t=2');
      });

      it('does not count a request that the global limiter already denied against the route limiter', async () => {
        const clock = new ManualClock(0);
        const global = counting(new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock }));
        const route = counting(roomy(clock));
        const { http } = driver.serveRoutes({ app: { limiter: global.limiter }, routes: { '/': { limiter: route.limiter } } });
        const statuses = [];
        for (let i = 0; i < 5; i++) statuses.push((await http.get('/')).status);
        expect(statuses).toEqual([200, 200, 429, 429, 429]);
        expect(global.keys).toHaveLength(5);
        expect(route.keys).toHaveLength(2);
      });
    });
  }
}
