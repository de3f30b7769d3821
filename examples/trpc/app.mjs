/**
 * The tRPC example server: a tRPC v11 router on its Express adapter at /trpc, every procedure behind
 * `global` and two behind a limit of their own as well, each keyed by the client IP (`req.ip`; Express's
 * `trust proxy` is off, so a spoofed X-Forwarded-For changes nothing):
 *
 * - `global`, every call (each call of a batch counts): a token bucket of 100 refilled at 10 per second;
 * - `login` (a mutation): at most 5 per minute, sliding window;
 * - `search` (a query): 5 per second and 8 per minute at once (a CompositeLimiter).
 *
 * A denied call is a TRPCError TOO_MANY_REQUESTS (HTTP 429, `Retry-After` on the response) whose data
 * holds `retryAfterMs` and `retryAfterSeconds` (rateLimitErrorFormatter). `clock` is injectable so the
 * test can move time by hand; a server uses the system clock.
 */
import { CompositeLimiter, SlidingWindowLimiter, TokenBucketLimiter, systemClock } from '@ratekeeper/core';
import { rateLimit, rateLimitErrorFormatter } from '@ratekeeper/trpc';
import { initTRPC } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import express from 'express';

/** createRouter builds the router; each call has its own, empty limiters. */
export function createRouter({ clock = systemClock } = {}) {
  const t = initTRPC.context().create({ errorFormatter: rateLimitErrorFormatter });
  const limited = t.procedure.use(rateLimit({ algorithm: 'token-bucket', capacity: 100, refillPerSecond: 10, name: 'global', clock }));
  const search = new CompositeLimiter([
    new TokenBucketLimiter({ capacity: 5, refillPerSecond: 5, name: 'search-1s', clock }),
    new SlidingWindowLimiter({ limit: 8, windowMs: 60_000, name: 'search-1m', clock }),
  ]);
  return t.router({
    hello: limited.query(() => ({ hello: 'world' })),
    login: limited
      .use(rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 60_000, name: 'login', clock }))
      .mutation(() => ({ loggedIn: false, reason: 'this example checks no passwords' })),
    search: limited
      .use(rateLimit({ limiter: search }))
      .input((q) => String(q ?? ''))
      .query(({ input }) => ({ query: input, results: [] })),
  });
}

/** createApp builds the Express app serving the router at /trpc (not yet listening). */
export function createApp({ clock = systemClock } = {}) {
  const app = express();
  app.use('/trpc', createExpressMiddleware({ router: createRouter({ clock }), createContext: ({ req, res }) => ({ req, res }) }));
  return app;
}
