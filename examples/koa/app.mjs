/**
 * The Koa example app: three limits, each keyed by the client IP (`ctx.ip`; `app.proxy` is off, so a
 * spoofed X-Forwarded-For changes nothing):
 *
 * - global, every route: a token bucket of 100 refilled at 10 per second (bursts of 100, then 10/s);
 * - POST /login: at most 5 per minute, sliding window (brute-force protection);
 * - GET /search: 5 per second and 8 per minute at once (a CompositeLimiter: all or nothing, and a
 *   request one member denies costs the other nothing).
 *
 * Limits are deliberately small so that a short burst (`pnpm demo`) shows every one of them engage.
 * `clock` is injectable so the test can move time by hand; a server uses the system clock.
 */
import { CompositeLimiter, SlidingWindowLimiter, TokenBucketLimiter, systemClock } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/koa';
import Router from '@koa/router';
import Koa from 'koa';

/** createApp builds the example app; each call has its own, empty limiters. */
export function createApp({ clock = systemClock } = {}) {
  const app = new Koa();
  const router = new Router();
  app.use(rateLimit({ algorithm: 'token-bucket', capacity: 100, refillPerSecond: 10, name: 'global', clock }));

  router.get('/', (ctx) => {
    ctx.body = { hello: 'world' };
  });

  const login = rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 60_000, name: 'login', clock });
  router.post('/login', login, (ctx) => {
    ctx.body = { loggedIn: false, reason: 'this example checks no passwords' };
  });

  const search = new CompositeLimiter([
    new TokenBucketLimiter({ capacity: 5, refillPerSecond: 5, name: 'search-1s', clock }),
    new SlidingWindowLimiter({ limit: 8, windowMs: 60_000, name: 'search-1m', clock }),
  ]);
  router.get('/search', rateLimit({ limiter: search }), (ctx) => {
    ctx.body = { query: String(ctx.query.q ?? ''), results: [] };
  });

  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
