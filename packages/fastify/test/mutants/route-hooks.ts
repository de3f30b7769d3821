/**
 * Mutant: adds the check to each route in onRoute, the way @fastify/rate-limit does, instead of one
 * context-level hook. It never sees the not-found handler (nor routes added before it loaded), so the
 * counting harness must find requests counted zero times.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { answerNode } from '@ratekeeper/core/adapter';
import { fastifyPlugin } from 'fastify-plugin';
import type { FastifyRateLimitOptions } from '../../src/options.js';
import { prepareGlobal } from '../../src/route-limit.js';

export const routeHooks = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    const limit = prepareGlobal(options);
    const hook = (request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction) => {
      const outcome = limit.prepared.decide(request, request.ip);
      if (outcome === undefined) next();
      else if (outcome instanceof Promise) outcome.then((d) => (d == null ? next() : answerNode(limit.prepared, limit.answer, request, reply, next, d)), next);
      else answerNode(limit.prepared, limit.answer, request, reply, next, outcome);
    };
    fastify.addHook('onRoute', (route: RouteOptions) => {
      route.onRequest = [...[route.onRequest ?? []].flat(), hook];
    });
    done();
  },
  { name: 'mutant-route-hooks' },
);
