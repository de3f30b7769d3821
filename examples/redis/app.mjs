/**
 * The Redis example app: every route under one limit per client IP, a token bucket of 10 refilled at
 * one token every 6 seconds, kept in Redis. Run the server twice (two processes, two ports) against
 * one Redis and the 10 are shared: a client gets 10 requests in a burst in total, whichever server
 * answers them.
 *
 * The store reads Redis's clock (TIME), so the two servers' own clocks do not matter; if Redis is
 * slow or gone (50 ms timeout), each server falls back to an in-process limiter with the same policy
 * and Redis decides again as soon as it answers. Failures are logged at most once per second.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/express';
import { RedisStore } from '@ratekeeper/redis';
import express from 'express';

/** createApp builds the app for one server named `name`, on an ioredis or node-redis `client`. */
export function createApp({ client, name }) {
  const store = new RedisStore({ client });
  let lastLog = 0;
  store.on('failure', (info) => {
    if (Date.now() - lastLog < 1000) return;
    lastLog = Date.now();
    console.warn(`[${name}] rate-limit store: ${info.reason}; deciding by the in-process fallback`);
  });
  const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1 / 6, name: 'api', store });
  // Lease mode (LeasedLimiter from @ratekeeper/redis) would not pay here: a per-IP key is cold, and a
  // lease of a cold key costs a take and a return instead of one call. For a hot key (a global limit,
  // a per-tenant quota), wrap the bucket and give the units back on shutdown:
  //   const leased = new LeasedLimiter(new TokenBucketLimiter({ capacity: 10_000, refillPerSecond: 200, name: 'global', store }), { units: 50 });
  //   app.use(rateLimit({ limiter: leased, key: () => 'global' }));  …  on SIGTERM: await leased.close();
  // lease.test.mjs runs exactly that through this adapter.

  const app = express();
  app.use((req, res, next) => {
    res.setHeader('X-Served-By', name);
    next();
  });
  app.use(rateLimit({ limiter }));
  app.get('/', (req, res) => {
    res.json({ server: name });
  });
  return app;
}
