/**
 * Mutant: a plugin that does not hand core the client's socket (it answers none), so in delay mode a held request whose
 * client went away keeps its booking until its instant: units spent for nobody.
 * clientLeavesNoTrace must catch it.
 */
import { prepareRateLimit } from '@ratekeeper/core/adapter';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import type { FastifyRateLimitOptions } from '../../src/options.js';

export const forgetsRelease = fastifyPlugin(
  (fastify: FastifyInstance, options: FastifyRateLimitOptions, done: (error?: Error) => void) => {
    const plan = prepareRateLimit<FastifyRequest>('mutant', options, ['handler', 'global'], { gone: (request) => request.raw.socket?.destroyed === true, socket: () => undefined });
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: HookHandlerDoneFunction) => {
      Promise.resolve(plan.decide(request, request.ip)).then((decision) => {
        if (decision === undefined) return next();
        if (decision === null) return;
        plan.writeHeaders(reply, (r, name, value) => void r.header(name, value), decision);
        if (!plan.blocks(decision)) return next();
        void reply.code(decision.failure === 'closed' ? 503 : 429).send();
      }, next);
    });
    done();
  },
  { name: 'mutant-forgets-release' },
);
