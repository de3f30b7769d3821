/**
 * HTTP/2 rapid reset on the fetch adapter (`limit.wrap`, served by @hono/node-server on node:http2's h2c
 * server): the adapter contract's rapid-reset suite, a ConcurrencyLimiter of 10 under 10,000
 * HEADERS+RST pairs from a raw client; at most 10 handlers run and every lease comes back; the mutant
 * that keeps a lease after an RST is caught, and so is `abandonedMs: 0`, which ends each lease at its
 * stream's reset.
 */
import { type Http2Server, createServer } from 'node:http2';
import { type Http2Bindings, type HttpBindings, createAdaptorServer } from '@hono/node-server';
import { type H2App, rapidResetSuite } from '@ratekeeper/adapter-contract';
import { rateLimit } from '../src/index.js';
import type { Factory } from './helpers.js';
import { keepsLeaseAfterReset } from './mutants/keeps-lease-after-reset.js';

const app: H2App<Factory> = {
  name: 'fetch on node:http2 (@hono/node-server)',
  async serve(options, work, factory = rateLimit) {
    const limit = factory(options);
    const handler = limit.wrap(
      async () => (await work(), new Response('ok')),
      (_request, env: HttpBindings | Http2Bindings) => env.incoming.socket.remoteAddress,
    );
    return (createAdaptorServer({ fetch: handler, createServer }) as unknown as Http2Server).listen(0, '127.0.0.1');
  },
};

rapidResetSuite([app], { keepsLeaseAfterReset });
