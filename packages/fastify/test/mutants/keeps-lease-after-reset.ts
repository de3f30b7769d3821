/**
 * Mutant: a lease kept after an RST. The plugin, behind hooks, hands core a response whose 'close' is
 * heard only when its headers had been sent, so the work of a response closed before it was sent (an
 * HTTP/2 stream the client reset before its handler answered) is dropped: its lease is not given back
 * when the handler answers. rapidResetSuite must catch it.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import { closeWhenSent } from '@ratekeeper/adapter-contract';
import type { FastifyRateLimitOptions } from '../../src/options.js';
import { rateLimit } from '../../src/index.js';

const undos = new WeakMap<object, () => void>();

export const keepsLeaseAfterReset = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    fastify.addHook('onRequest', (_request, reply, next) => void (undos.set(reply.raw, closeWhenSent(reply.raw as ServerResponse)), next()));
    fastify.register(rateLimit, options);
    fastify.after(() => {
      fastify.addHook('onRequest', (_request, reply, next) => void (undos.get(reply.raw)?.(), next()));
    });
    done();
  },
  { name: 'mutant-keeps-lease-after-reset' },
);
