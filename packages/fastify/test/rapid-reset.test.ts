/**
 * HTTP/2 rapid reset on Fastify (`http2: true`, h2c): the adapter contract's rapid-reset suite, a
 * ConcurrencyLimiter of 10 under 10,000 HEADERS+RST pairs from a raw client; at most 10 handlers run
 * and every lease comes back; the mutant that keeps a lease after an RST is caught, and so is
 * `abandonedMs: 0`, which ends each lease at its stream's reset.
 */
import type { Http2Server } from 'node:http2';
import { type H2App, rapidResetSuite } from '@ratekeeper/adapter-contract';
import Fastify, { type FastifyPluginCallback } from 'fastify';
import { type FastifyRateLimitOptions, rateLimit } from '../src/index.js';
import { keepsLeaseAfterReset } from './mutants/keeps-lease-after-reset.js';

type Plugin = FastifyPluginCallback<FastifyRateLimitOptions>;

const app: H2App<Plugin> = {
  name: 'Fastify 5',
  async serve(options, work, factory = rateLimit) {
    const fastify = Fastify({ http2: true });
    await fastify.register(factory, options);
    fastify.get('/', async () => {
      await work();
      return 'ok';
    });
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    return fastify.server as unknown as Http2Server;
  },
};

rapidResetSuite([app], { keepsLeaseAfterReset: keepsLeaseAfterReset as Plugin });
