/**
 * The Fastify example app: three limits, each keyed by the client IP (`request.ip`; `trustProxy` is
 * off, so a spoofed X-Forwarded-For changes nothing). The plugin checks in `onRequest`, before any body
 * is parsed:
 *
 * - global, on every route without a `config.rateLimit` of its own: a token bucket of 100 refilled at
 *   10 per second (bursts of 100, then 10/s); a route's own limit replaces it there (Fastify's idiom);
 * - POST /login (`config.rateLimit`): at most 5 per minute, sliding window (brute-force protection);
 * - GET /search (`config.rateLimit`): 5 per second and 8 per minute at once (a CompositeLimiter: all
 *   or nothing, and a request one member denies costs the other nothing).
 *
 * Limits are deliberately small so that a short burst (`pnpm demo`) shows every one of them engage.
 * `clock` is injectable so the test can move time by hand; a server uses the system clock.
 */
import { CompositeLimiter, SlidingWindowLimiter, TokenBucketLimiter, systemClock } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/fastify';
import Fastify from 'fastify';

/** createApp builds the example app (not yet listening); each call has its own, empty limiters. */
export async function createApp({ clock = systemClock } = {}) {
  const app = Fastify();
  await app.register(rateLimit, { algorithm: 'token-bucket', capacity: 100, refillPerSecond: 10, name: 'global', clock });

  app.get('/', async () => ({ hello: 'world' }));

  const login = { algorithm: 'sliding-window', limit: 5, windowMs: 60_000, name: 'login', clock };
  app.post('/login', { config: { rateLimit: login } }, async () => ({ loggedIn: false, reason: 'this example checks no passwords' }));

  const search = new CompositeLimiter([
    new TokenBucketLimiter({ capacity: 5, refillPerSecond: 5, name: 'search-1s', clock }),
    new SlidingWindowLimiter({ limit: 8, windowMs: 60_000, name: 'search-1m', clock }),
  ]);
  app.get('/search', { config: { rateLimit: { limiter: search } } }, async (request) => ({ query: String(request.query.q ?? ''), results: [] }));
  return app;
}
