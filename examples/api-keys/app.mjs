/**
 * The API-key example: one Express middleware serves callers on two plans.
 *
 * - Each caller sends `X-Api-Key`; the key is looked up asynchronously (a database or a cache in real
 *   life, an in-memory table answering on a later tick here) to find its tenant and plan. The lookup
 *   runs once per request: `key` and `plan` share it.
 * - Plans: free, 10 units a minute; pro, 100 units a minute (token buckets of a minute's units, so a
 *   burst may spend them at once and they come back steadily; small so that `pnpm demo` shows them
 *   engage). Each answers with its own RateLimit-Policy item and problem body.
 * - A unit is one KiB of response body, at least one per request: 1 unit is charged up front, and
 *   once the response is sent, `settle` charges what its Content-Length says (a 5 KiB report costs 5).
 * - A request without a known key is answered 401 before any limit (nothing is counted for it).
 *
 * `clock` is injectable so the test can move time by hand; a server uses the system clock. `store`
 * (default: memory) may be a RedisStore: examples/redis runs this app's test on Redis.
 */
import { TokenBucketLimiter, systemClock } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/express';
import express from 'express';

const KEYS = new Map([
  ['free-key-1', { tenant: 'acme', plan: 'free' }],
  ['pro-key-1', { tenant: 'globex', plan: 'pro' }],
]);

/** lookup is the asynchronous API-key lookup, remembered on the request so it runs once. */
function lookup(req) {
  req.account ??= new Promise((resolve) => setImmediate(() => resolve(KEYS.get(req.get('x-api-key') ?? ''))));
  return req.account;
}

/** createApp builds the example app; each call has its own, empty limiters. */
export function createApp({ clock = systemClock, store } = {}) {
  const app = express();
  app.use(async (req, res, next) => ((await lookup(req)) === undefined ? res.status(401).json({ error: 'unknown API key' }) : next()));
  // Kept on app.locals for the tests, which read a plan's state after a settle.
  const plans = (app.locals.plans = {
    free: new TokenBucketLimiter({ capacity: 10, refillPerSecond: 10 / 60, name: 'free', clock, store }),
    pro: new TokenBucketLimiter({ capacity: 100, refillPerSecond: 100 / 60, name: 'pro', clock, store }),
  });
  app.use(
    rateLimit({
      plans,
      plan: async (req) => (await lookup(req)).plan,
      key: async (req) => `tenant:${(await lookup(req)).tenant}`,
      settle: ({ contentLength }) => Math.max(1, Math.ceil((contentLength ?? 0) / 1024)),
    }),
  );

  app.get('/reports/:kib', (req, res) => {
    const kib = Math.min(64, Math.max(0, Number(req.params.kib) || 0));
    res.json({ plan: req.rateLimit?.policy.name, remainingBeforeSettle: req.rateLimit?.remaining, data: 'x'.repeat(kib * 1024) });
  });
  return app;
}
