/**
 * The PostgreSQL example app: every route under one limit per client IP, a token bucket of 10 refilled
 * at one token every 6 seconds, kept in PostgreSQL by a PostgresStore of default options (server time,
 * the failure policy's in-process fallback, tables created on first use). Run the server twice (two
 * processes, two ports) against one database and the 10 are shared: a client gets 10 requests in a
 * burst in total, whichever server answers them. Store failures are logged at most once per second.
 *
 * `table` (optional) names the store's table; left out, the store's default ('ratekeeper') is used.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/express';
import { PostgresStore } from '@ratekeeper/postgres';
import express from 'express';

/** createApp builds the app for one server named `name`, on a node-postgres Pool `pool`. */
export function createApp({ pool, name, table }) {
  const store = new PostgresStore(table === undefined ? { client: pool } : { client: pool, table });
  let lastLog = 0;
  store.on('failure', (info) => {
    if (Date.now() - lastLog < 1000) return;
    lastLog = Date.now();
    console.warn(`[${name}] rate-limit store: ${info.reason}; deciding by the in-process fallback`);
  });
  const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1 / 6, name: 'api', store });

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
