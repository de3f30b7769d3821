/**
 * HTTP/2 rapid reset on Koa 3 and 2 (served by node:http2's h2c server through `app.callback()`): the
 * adapter contract's rapid-reset suite, a ConcurrencyLimiter of 10 under 10,000 HEADERS+RST pairs from
 * a raw client; at most 10 handlers run and every lease comes back; the mutant that keeps a lease after
 * an RST is caught, and so is `abandonedMs: 0`, which ends each lease at its stream's reset.
 */
import { createServer } from 'node:http2';
import { type H2App, rapidResetSuite } from '@ratekeeper/adapter-contract';
import type { Middleware } from 'koa';
import { rateLimit } from '../src/index.js';
import { type Factory, koas } from './helpers.js';
import { keepsLeaseAfterReset } from './mutants/keeps-lease-after-reset.js';

const apps = koas.map(
  ([name, Koa]): H2App<Factory> => ({
    name,
    async serve(options, work, factory = rateLimit) {
      const app = new Koa();
      app.on('error', () => {}); // a reset stream's late answer cannot be written: nobody is there
      app.use(factory(options) as Middleware);
      app.use(async (ctx) => {
        await work();
        ctx.body = 'ok';
      });
      return createServer(app.callback()).listen(0, '127.0.0.1');
    },
  }),
);

rapidResetSuite(apps, { keepsLeaseAfterReset: keepsLeaseAfterReset as Factory });
