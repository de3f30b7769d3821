/**
 * Mutant: the plugin behind a hook that makes every request look complete, i.e. an adapter that does
 * not tell an aborted body from a read one: the lease of a POST whose client left before its body
 * arrived waits for a handler Fastify will never run (abandonedMs). regressions/aborted-body-lease
 * must catch it.
 */
import type { FastifyInstance } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import type { FastifyRateLimitOptions } from '../../src/options.js';
import { rateLimit } from '../../src/index.js';

export const ignoresUnreadBody = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    fastify.addHook('onRequest', (request, _reply, next) => {
      Object.defineProperty(request.raw, 'complete', { get: () => true, set: () => {}, configurable: true });
      next();
    });
    fastify.register(rateLimit, options);
    done();
  },
  { name: 'mutant-ignores-unread-body' },
);
