/**
 * Mutant: the plugin behind a hook that makes each request end when its client disconnects (the raw
 * response reads as answered at that moment), as every adapter did before: a lease goes back while
 * its handler still works, so a client beats a concurrency limit by disconnecting. workSuite must
 * catch it.
 */
import type { FastifyInstance } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import { endsAtDisconnect } from '@ratekeeper/adapter-contract';
import type { FastifyRateLimitOptions } from '../../src/options.js';
import { rateLimit } from '../../src/index.js';

export const releasesAtDisconnect = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    fastify.addHook('onRequest', (_request, reply, next) => void (endsAtDisconnect(reply.raw), next()));
    fastify.register(rateLimit, options);
    done();
  },
  { name: 'mutant-ends-at-disconnect' },
);
