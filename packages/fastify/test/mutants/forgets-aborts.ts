/**
 * Mutant: the plugin behind hooks that hand core a response whose 'close' is read as 'finish', i.e. it
 * releases a lease when the response completes and forgets the aborted ones (the client's socket
 * destroyed mid-response emits 'close' without 'finish'). leasesSuite must catch it.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import { closeOnFinish } from '@ratekeeper/adapter-contract';
import type { FastifyRateLimitOptions } from '../../src/options.js';
import { rateLimit } from '../../src/index.js';

const undos = new WeakMap<ServerResponse, () => void>();

export const forgetsAborts = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    fastify.addHook('onRequest', (_request, reply, next) => void (undos.set(reply.raw, closeOnFinish(reply.raw)), next()));
    fastify.register(rateLimit, options);
    fastify.after(() => {
      fastify.addHook('onRequest', (_request, reply, next) => void (undos.get(reply.raw)?.(), next()));
    });
    done();
  },
  { name: 'mutant-forgets-aborts' },
);
