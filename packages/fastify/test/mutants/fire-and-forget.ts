/**
 * Mutant: on an asynchronous limiter it lets the request go on at once and writes the headers when the
 * decision arrives, the way a hook that forgets to wait would. The concurrency harness must catch it:
 * every request reaches the handler.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { answerNode } from '@ratekeeper/core/adapter';
import { fastifyPlugin } from 'fastify-plugin';
import type { FastifyRateLimitOptions } from '../../src/options.js';
import { prepareGlobal } from '../../src/route-limit.js';

export const fireAndForget = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    const limit = prepareGlobal(options);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction) => {
      const outcome = limit.prepared.decide(request, request.ip);
      next();
      if (outcome instanceof Promise)
        outcome.then(
          (d) => d != null && answerNode(limit.prepared, limit.answer, request, reply, () => undefined, d),
          () => undefined,
        );
    });
    done();
  },
  { name: 'mutant-fire-and-forget' },
);
