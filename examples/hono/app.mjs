/**
 * The Hono example app (Node, through @hono/node-server): three limits, each keyed by the client
 * address that `getConnInfo` from @hono/node-server/conninfo reports (the socket; a spoofed
 * X-Forwarded-For changes nothing):
 *
 * - global, every route: a token bucket of 100 refilled at 10 per second (bursts of 100, then 10/s);
 * - POST /login: at most 5 per minute, sliding window (brute-force protection);
 * - GET /search: 5 per second and 8 per minute at once (a CompositeLimiter: all or nothing, and a
 *   request one member denies costs the other nothing).
 *
 * The same app runs unchanged on Bun, Deno or Workers with that runtime's getConnInfo (hono/bun,
 * hono/deno, hono/cloudflare-workers). Limits are small so that `pnpm demo` shows each engage;
 * `clock` is injectable so the test can move time by hand.
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import { CompositeLimiter, SlidingWindowLimiter, TokenBucketLimiter, systemClock } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/hono';
import { Hono } from 'hono';

/** createApp builds the example app; each call has its own, empty limiters. */
export function createApp({ clock = systemClock } = {}) {
  const app = new Hono();
  app.use(rateLimit({ algorithm: 'token-bucket', capacity: 100, refillPerSecond: 10, name: 'global', clock, getConnInfo }));

  app.get('/', (c) => c.json({ hello: 'world' }));

  const login = rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 60_000, name: 'login', clock, getConnInfo });
  app.post('/login', login, (c) => c.json({ loggedIn: false, reason: 'this example checks no passwords' }));

  const search = new CompositeLimiter([
    new TokenBucketLimiter({ capacity: 5, refillPerSecond: 5, name: 'search-1s', clock }),
    new SlidingWindowLimiter({ limit: 8, windowMs: 60_000, name: 'search-1m', clock }),
  ]);
  app.get('/search', rateLimit({ limiter: search, getConnInfo }), (c) => c.json({ query: c.req.query('q') ?? '', results: [] }));
  return app;
}
