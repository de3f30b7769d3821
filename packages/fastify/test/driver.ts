/**
 * The Fastify driver for the adapter contract (@ratekeeper/adapter-contract): a real Fastify 5 app,
 * served over real HTTP on loopback (serverFactory hands Fastify a Node server the contract's `listen`
 * starts; requests wait until the app is ready), with the plugin (or a mutant) registered before a
 * GET / route. Errors are recorded by an onError hook, which leaves Fastify's own error handler to
 * answer. The contract's framework-neutral callbacks are translated into Fastify's (request, reply).
 *
 * serveRoutes is not offered: in Fastify a route's `config.rateLimit` replaces the registration's plan
 * instead of stacking a second limiter (see route-limit.ts), so the counting suite's stacked mounts
 * do not apply; test/counting.test.ts covers Fastify's own rule.
 */
import { type Server, createServer } from 'node:http';
import type { Answer, ContractOptions, Driver, RequestView } from '@ratekeeper/adapter-contract';
import { listen, refusal } from '@ratekeeper/adapter-contract';
import type { Decision } from '@ratekeeper/core';
import Fastify, { type FastifyPluginCallback, type FastifyReply, type FastifyRequest } from 'fastify';
import { type FastifyRateLimitOptions, rateLimit } from '../src/index.js';

export type Plugin = FastifyPluginCallback<FastifyRateLimitOptions>;

const view = (request: FastifyRequest): RequestView => ({
  header: (name) => {
    const value = request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  },
  query: (name) => {
    const value = (request.query as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  },
  path: request.url.split('?')[0] as string,
});

/** translate maps the contract's options onto Fastify's, leaving everything else untouched. */
export function translate(options: ContractOptions): FastifyRateLimitOptions {
  const { key, skip, cost, plan, onDecision, countOutcome, settle, handler, ...rest } = options;
  const send = (reply: FastifyReply, answer: Answer) => (answer.status === undefined ? reply : reply.code(answer.status)).send(answer.body);
  return {
    ...rest,
    ...(key === undefined ? {} : { key: (request: FastifyRequest) => key(view(request)) }),
    ...(skip === undefined ? {} : { skip: (request: FastifyRequest) => skip(view(request)) }),
    ...(cost === undefined ? {} : { cost: (request: FastifyRequest) => cost(view(request)) }),
    ...(plan === undefined ? {} : { plan: (request: FastifyRequest) => plan(view(request)) }),
    ...(countOutcome === undefined ? {} : { countOutcome: (o, request: FastifyRequest) => countOutcome(o, view(request)) }),
    ...(settle === undefined ? {} : { settle: (o, request: FastifyRequest) => settle(o, view(request)) }),
    ...(onDecision === undefined ? {} : { onDecision: (d, request: FastifyRequest) => onDecision(d, view(request)) }),
    ...(handler === undefined
      ? {}
      : {
          handler: (request: FastifyRequest, reply: FastifyReply, d) => {
            const answer = handler(d, view(request));
            return answer instanceof Promise ? answer.then((a) => send(reply, a)) : send(reply, answer);
          },
        }),
  } as FastifyRateLimitOptions; // rest keeps the contract options' limiter choice, which spreading loses to the type checker
}

export const driver: Driver<Plugin> = {
  name: 'Fastify 5',
  rateLimit,
  construct: async (options) => {
    const app = Fastify();
    await app.register(rateLimit, translate(options));
    await app.close();
  },
  serve(options, setup = {}) {
    let server: Server | undefined;
    const app = Fastify({
      trustProxy: (setup.proxy ?? false) as boolean,
      // A plugin that failed to load answers 500 (and is in `errors`), never an unhandled rejection.
      serverFactory: (handler) =>
        (server = createServer(
          (req, res) =>
            void ready.then(
              () => handler(req, res),
              () => res.writeHead(500).end(),
            ),
        )),
    });
    const errors: unknown[] = [];
    const ips: (string | undefined)[] = [];
    const decisions: (Decision | undefined)[] = [];
    let ran = 0;
    app.addHook('onError', (_request, _reply, error, done) => void (errors.push(error), done()));
    const { before, refuseHeader } = setup;
    if (before !== undefined) {
      app.addHook('onRequest', (request, reply, done) => {
        before(request.raw, reply.raw);
        // An answer written on the raw response is final: Fastify must not respond again.
        if (reply.raw.headersSent) reply.hijack();
        done();
      });
    }
    if (refuseHeader !== undefined) {
      app.addHook('onRequest', (_request, reply, done) => {
        const header = reply.header;
        reply.header = function (this: FastifyReply, name: string, value: unknown) {
          if (name.toLowerCase() === refuseHeader) throw refusal(name);
          return header.call(this, name, value);
        } as typeof reply.header;
        done();
      });
    }
    void app.register(setup.factory ?? rateLimit, translate(options));
    app.get('/', async (request, reply) => {
      ran++;
      ips.push(request.ip);
      decisions.push(request.rateLimit);
      const query = request.query as { status?: string; bytes?: string; throw?: string; hold?: string };
      if (setup.work !== undefined) await setup.work(view(request));
      if (query.throw !== undefined) throw new Error('the route failed');
      // Working until the client goes; then it answers, for nobody.
      if (query.hold !== undefined) return new Promise<string>((answer) => reply.raw.once('close', () => answer('late')));
      return reply.code(Number(query.status ?? 200)).send(query.bytes === undefined ? 'ok' : 'x'.repeat(Number(query.bytes)));
    });
    const ready = Promise.resolve(app.ready());
    ready.catch((error: unknown) => void errors.push(error));
    return { ...listen({ listen: (port, host) => (server as Server).listen(port, host) }), errors, ips, decisions, ran: () => ran };
  },
  serveRoutes() {
    throw new Error('Fastify: a route config.rateLimit replaces the registration plan; stacked mounts do not apply');
  },
};

export const drivers = [driver];
