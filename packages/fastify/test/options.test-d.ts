/**
 * Type tests of the plugin's options and of a route's `config.rateLimit`: one type per algorithm
 * (core's LimiterChoice), so an option the chosen algorithm does not take, or one no algorithm takes
 * (`{ limt: 2 }`), fails to compile as it fails at run time (a misspelt name written straight into
 * `app.get(url, { config: { rateLimit } })` too: config-type.test-d.ts). Checked by tsc (`pnpm
 * typecheck`) and by vitest's typecheck (vitest.config.ts): an @ts-expect-error that compiles fails the run.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import Fastify from 'fastify';
import { describe, expectTypeOf, it } from 'vitest';
import { type FastifyRateLimitOptions, type RouteRateLimitOptions, rateLimit } from '../src/index.js';

const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 });
const app = Fastify();
const route = (options: RouteRateLimitOptions) => options;

describe('registration options', () => {
  it('take each algorithm with its own sizes, the window without algorithm, a limiter or plans', () => {
    void app.register(rateLimit, { algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1, global: false });
    void app.register(rateLimit, { windowMs: 60_000, limit: 100, handler: (_request, reply) => reply.send('slow down') });
    void app.register(rateLimit, { algorithm: 'concurrency', limit: 2 });
    void app.register(rateLimit, { limiter, key: (request) => request.ip });
    void app.register(rateLimit, { plans: { free: limiter }, plan: () => 'free' });
  });

  it('refuse what run time refuses', () => {
    // @ts-expect-error limit is no 'token-bucket' option
    void app.register(rateLimit, { algorithm: 'token-bucket', limit: 5 });
    // @ts-expect-error shorthand sizes beside a limiter
    void app.register(rateLimit, { limiter, capacity: 5 });
    // @ts-expect-error max and timeWindow are @fastify/rate-limit's names: ratekeeper's are limit and windowMs
    void app.register(rateLimit, { max: 100, timeWindow: '1 minute' });
  });
});

describe('config.rateLimit of a route', () => {
  it('takes the registration options but global, or false', () => {
    app.get('/a', { config: { rateLimit: { limit: 5 } } }, async () => 'a');
    app.get('/b', { config: { rateLimit: { algorithm: 'sliding-window', limit: 5, windowMs: 1000, cost: () => 2 } } }, async () => 'b');
    app.get('/c', { config: { rateLimit: { limiter } } }, async () => 'c');
    app.get('/d', { config: { rateLimit: false } }, async () => 'd');
    app.get('/e', { config: { rateLimit: { shadow: true, handler: (_request, reply) => reply.code(503).send('busy') } } }, async () => 'e');
    expectTypeOf<RouteRateLimitOptions['global']>().toEqualTypeOf<undefined>();
    expectTypeOf<FastifyRateLimitOptions>().toHaveProperty('global');
  });

  it('refuses a typo, a size the algorithm does not take, global, and shorthand beside a limiter', () => {
    // @ts-expect-error a typo of limit, in an object checked as a route's options
    app.get('/x', { config: { rateLimit: { limt: 2 } satisfies RouteRateLimitOptions } }, async () => 'x');
    // @ts-expect-error a typo of limit, passed where the route's type is declared
    route({ limt: 2 });
    // @ts-expect-error limit is no 'token-bucket' option
    app.get('/y', { config: { rateLimit: { algorithm: 'token-bucket', limit: 5 } } }, async () => 'y');
    // @ts-expect-error global applies to the registration only
    app.get('/z', { config: { rateLimit: { global: false } } }, async () => 'z');
    // @ts-expect-error shorthand sizes beside a limiter
    app.get('/w', { config: { rateLimit: { limiter, windowMs: 1000 } } }, async () => 'w');
    // @ts-expect-error windowMs is no 'gcra' option
    app.route({ method: 'GET', url: '/v', config: { rateLimit: { algorithm: 'gcra', windowMs: 1000 } }, handler: async () => 'v' });
  });
});
