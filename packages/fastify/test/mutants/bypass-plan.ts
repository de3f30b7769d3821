/**
 * Mutant: asks the limiter directly instead of through core's plan, so a rejected promise reaches
 * Fastify's error handler as the store's own error, text included. The leak harness must catch it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { answerNode } from '@ratekeeper/core/adapter';
import { fastifyPlugin } from 'fastify-plugin';
import type { FastifyRateLimitOptions } from '../../src/options.js';
import { prepareGlobal } from '../../src/route-limit.js';

export const bypassPlan = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    const limit = prepareGlobal(options);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction) => {
      const outcome = Promise.resolve(limit.prepared.limiter.consume(request.ip));
      outcome.then((d) => answerNode(limit.prepared, limit.answer, request, reply, next, d), next);
    });
    done();
  },
  { name: 'mutant-bypass-plan' },
);
