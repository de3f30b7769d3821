/**
 * Type tests of config-type.ts: a name that is no option, written straight into a route's
 * `config.rateLimit` (where Fastify infers the config's type from the object itself), fails to
 * compile, in every way a route is added; every valid form still compiles, and a reader of the config
 * sees exactly `RouteRateLimitOptions | false`. Checked by tsc (`pnpm typecheck`) and by vitest's
 * typecheck (vitest.config.ts): an @ts-expect-error that compiles fails the run, so these lines fail
 * without the `this`-typed `rateLimit` of options.ts.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import Fastify, { type FastifyContextConfig } from 'fastify';
import { describe, expectTypeOf, it } from 'vitest';
import { type RouteRateLimitOptions, rateLimit } from '../src/index.js';

const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 });
const app = Fastify();
const typed: RouteRateLimitOptions = { limit: 5 };
const either = (on: boolean) => (on ? typed : false);

describe('config.rateLimit written inline', () => {
  it('takes every valid form, in every way a route is added', () => {
    void app.register(rateLimit, { algorithm: 'sliding-window', limit: 100, windowMs: 60_000 });
    app.get('/a', { config: { rateLimit: false } }, async () => 'a');
    app.get('/b', { config: { rateLimit: { algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1, name: 'b' } } }, async () => 'b');
    app.get('/c', { config: { rateLimit: { algorithm: 'fixed-window', limit: 5, windowMs: 1000 } } }, async () => 'c');
    app.get('/d', { config: { rateLimit: { algorithm: 'sliding-log', limit: 5, windowMs: 1000 } } }, async () => 'd');
    app.get('/e', { config: { rateLimit: { algorithm: 'gcra', emissionIntervalMs: 200, burst: 5 } } }, async () => 'e');
    app.get('/f', { config: { rateLimit: { algorithm: 'concurrency', limit: 2, retryAfterMs: 500 } } }, async () => 'f');
    app.get('/g', { config: { rateLimit: { limiter, key: (request) => request.ip, skip: (request) => request.is404 } } }, async () => 'g');
    app.get('/h', { config: { rateLimit: { plans: { free: limiter }, plan: (request) => (request.headers['x-plan'] === 'free' ? 'free' : 'free') } } }, async () => 'h');
    app.get('/i', { config: { rateLimit: { limit: 5, handler: (_request, reply) => reply.code(503).send('busy'), cost: async () => 2 } } }, async () => 'i');
    app.get('/j', { config: { rateLimit: typed } }, async () => 'j');
    app.get('/k', { config: { rateLimit: either(true) } }, async () => 'k');
    app.get('/l', { config: { rateLimit: { limit: 5 }, owner: 'team-a' } }, async (request) => request.routeOptions.config.owner);
    app.get<{ Querystring: { q: string } }>('/m', { config: { rateLimit: { limit: 5 } } }, async (request) => request.query.q);
    app.get('/n', { config: { rateLimit: { shadow: true } }, handler: async () => 'n' });
    app.route({ method: ['GET', 'POST'], url: '/o', config: { rateLimit: { algorithm: 'gcra', burst: 5 } }, handler: async () => 'o' });
  });

  it('refuses a name that is no option, naming it', () => {
    // @ts-expect-error a typo of limit, written inline in app.get(url, options, handler)
    app.get('/x', { config: { rateLimit: { limt: 2 } } }, async () => 'x');
    // @ts-expect-error a typo of key, beside valid options
    app.get('/x', { config: { rateLimit: { algorithm: 'sliding-window', limit: 5, kye: (request: unknown) => String(request) } } }, async () => 'x');
    // @ts-expect-error a typo of limit, in app.route
    app.route({ method: 'GET', url: '/x', config: { rateLimit: { limt: 2 } }, handler: async () => 'x' });
    // @ts-expect-error a typo of limit, in the options' own handler form
    app.get('/x', { config: { rateLimit: { limt: 2 } }, handler: async () => 'x' });
    // @ts-expect-error a typo of limit, with the route's generics given
    app.get<{ Querystring: { q: string } }>('/x', { config: { rateLimit: { limt: 2 } } }, async () => 'x');
    // @ts-expect-error max is @fastify/rate-limit's name: ratekeeper's is limit
    app.get('/x', { config: { rateLimit: { max: 2 } } }, async () => 'x');
    // @ts-expect-error limit is a window's size, not a token bucket's (the error names it)
    app.get('/x', { config: { rateLimit: { algorithm: 'token-bucket', limit: 5 } } }, async () => 'x');
    // @ts-expect-error capacity beside a window's limit and windowMs (the error names capacity)
    app.get('/x', { config: { rateLimit: { windowMs: 1000, limit: 5, capacity: 2 } } }, async () => 'x');
    type Inline = NonNullable<(FastifyContextConfig & { rateLimit: { limt: number } })['rateLimit']>;
    expectTypeOf<Inline['limt']>().toHaveProperty("'limt' is not an option of config.rateLimit");
  });

  it('is exactly RouteRateLimitOptions | false to a reader', () => {
    expectTypeOf<FastifyContextConfig['rateLimit']>().toEqualTypeOf<RouteRateLimitOptions | false | undefined>();
    app.addHook('onRequest', async (request) => {
      expectTypeOf(request.routeOptions.config.rateLimit).toEqualTypeOf<RouteRateLimitOptions | false | undefined>();
    });
  });
});
