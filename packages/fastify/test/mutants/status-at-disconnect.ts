/**
 * Mutant: the plugin behind a hook that reports an aborted request with the status its response had
 * when the client left (Node's default 200) instead of its handler's answer: the login recipe gives
 * every aborted failed login back. abortedOutcomeSuite must catch it.
 */
import type { FastifyInstance } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import { statusAtDisconnect } from '@ratekeeper/adapter-contract';
import type { FastifyRateLimitOptions } from '../../src/options.js';
import { rateLimit } from '../../src/index.js';

export const reportsStatusAtDisconnect = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    fastify.addHook('onRequest', (_request, reply, next) => void (statusAtDisconnect(reply.raw), next()));
    fastify.register(rateLimit, options);
    done();
  },
  { name: 'mutant-status-at-disconnect' },
);
