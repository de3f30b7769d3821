/**
 * HTTP/2 rapid reset on Hono (served by @hono/node-server on node:http2's h2c server, the address from
 * @hono/node-server's getConnInfo): the adapter contract's rapid-reset suite, a ConcurrencyLimiter of
 * 10 under 10,000 HEADERS+RST pairs from a raw client; at most 10 handlers run and every lease comes
 * back; the mutant that keeps a lease after an RST is caught, and so is `abandonedMs: 0`, which ends
 * each lease at its stream's reset.
 */
import { type Http2Server, createServer } from 'node:http2';
import { createAdaptorServer } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type H2App, rapidResetSuite } from '@ratekeeper/adapter-contract';
import { Hono, type MiddlewareHandler } from 'hono';
import { type HonoRateLimitOptions, rateLimit } from '../src/index.js';
import { keepsLeaseAfterReset } from './mutants/keeps-lease-after-reset.js';

type Factory = (options: HonoRateLimitOptions) => MiddlewareHandler;

const app: H2App<Factory> = {
  name: 'Hono on node:http2 (@hono/node-server)',
  async serve(options, work, factory = rateLimit as Factory) {
    const hono = new Hono();
    hono.use(factory({ ...options, getConnInfo }));
    hono.get('/', async (c) => (await work(), c.text('ok')));
    return (createAdaptorServer({ fetch: hono.fetch, createServer }) as unknown as Http2Server).listen(0, '127.0.0.1');
  },
};

rapidResetSuite([app], { keepsLeaseAfterReset });
