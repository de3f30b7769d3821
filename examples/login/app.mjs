/**
 * The login example: brute-force protection in a few lines.
 *
 * POST /login with JSON `{ "username", "password" }`. Only failed logins count (`countOutcome`: a
 * successful login's charge is given back), 5 per 15 minutes (sliding window) per username; the sixth attempt within
 * the window starts a ban of an hour (a BanLimiter), during which every attempt for that username is
 * answered 429 with the exact time left in Retry-After and RateLimit, and changes nothing (the ban
 * does not grow by being knocked on). The only valid password is "correct horse".
 *
 * `clock` is injectable so the test can move time by hand; a server uses the system clock. `store`
 * (default: memory) may be a RedisStore: examples/redis runs this app's test on Redis.
 */
import { BanLimiter, SlidingWindowLimiter, systemClock } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/express';
import express from 'express';

const MIN = 60_000;

/** createApp builds the example app; each call has its own, empty limiter. */
export function createApp({ clock = systemClock, store } = {}) {
  const app = express();
  const failures = new BanLimiter({ limiter: new SlidingWindowLimiter({ limit: 5, windowMs: 15 * MIN, name: 'login-failures', clock, store }), banMs: 60 * MIN });
  const guard = rateLimit({
    limiter: failures,
    key: (req) => `user:${String(req.body?.username ?? '').toLowerCase()}`,
    countOutcome: ({ status }) => status >= 400,
  });
  app.post('/login', express.json(), guard, (req, res) => {
    if (req.body?.password === 'correct horse') res.json({ loggedIn: true });
    else res.status(401).json({ loggedIn: false });
  });
  return app;
}
