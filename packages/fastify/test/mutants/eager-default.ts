/**
 * Mutant: after a synchronous custom handler returns undefined it sends the default body unless the
 * reply already looks sent, which it does not while an asynchronous onSend hook is still finishing the
 * handler's answer: a second response. The double-answer harness must catch it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import type { FastifyRateLimitOptions } from '../../src/options.js';
import { prepareGlobal } from '../../src/route-limit.js';

export const eagerDefault = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    const limit = prepareGlobal(options);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction) => {
      const decision = limit.prepared.decide(request, request.ip);
      if (decision === undefined || decision instanceof Promise || !limit.prepared.blocks(decision)) {
        next();
        return;
      }
      options.handler?.(request, reply, decision);
      if (!reply.sent && !reply.raw.headersSent) {
        const body = limit.prepared.body(decision);
        reply.code(body.status).header('content-type', body.contentType).send(body.bytes);
      }
    });
    done();
  },
  { name: 'mutant-eager-default' },
);
