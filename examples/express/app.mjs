/**
 * The Express example app: three limits, each keyed by the client IP (`req.ip`; Express's `trust proxy`
 * is off, so a spoofed X-Forwarded-For changes nothing):
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
import { rateLimit } from '@ratekeeper/express';
import express from 'express';

/** createApp builds the example app; each call has its own, empty limiters. */
export function createApp({ clock = systemClock } = {}) {
  const app = express();
  app.use(rateLimit({ algorithm: 'token-bucket', capacity: 100, refillPerSecond: 10, name: 'global', clock }));

  app.get('/', (req, res) => {
    res.json({ hello: 'world' });
  });

  const login = rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 60_000, name: 'login', clock });
  app.post('/login', login, (req, res) => {
    res.json({ loggedIn: false, reason: 'this example checks no passwords' });
  });

  const search = new CompositeLimiter([
    new TokenBucketLimiter({ capacity: 5, refillPerSecond: 5, name: 'search-1s', clock }),
    new SlidingWindowLimiter({ limit: 8, windowMs: 60_000, name: 'search-1m', clock }),
  ]);
  app.get('/search', rateLimit({ limiter: search }), (req, res) => {
    res.json({ query: String(req.query.q ?? ''), results: [] });
  });
  return app;
}
