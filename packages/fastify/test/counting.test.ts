/**
 * Exactly one consume per request: with a global and a per-route limit, on the not-found handler, on
 * automatic HEAD routes and in encapsulated child contexts. Counted by wrapping the limiters, and
 * cross-checked with onDecision.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { counting } from './helpers.js';

const roomy = (clock: ManualClock, name: string) => new TokenBucketLimiter({ capacity: 100, refillPerSecond: 1, clock, name });

describe('counting', () => {
  it('consumes exactly once per request across a global and a per-route limiter, on HEAD and on 404s (limitNotFound)', async () => {
    const clock = new ManualClock(0);
    const global = counting(roomy(clock, 'global'));
    const route = counting(roomy(clock, 'route'));
    const decisions: string[] = [];
    const app = Fastify();
    await app.register(rateLimit, {
      limiter: global.limiter,
      limitNotFound: true,
      onDecision: (d, req) => decisions.push(`${req.method} ${req.url} ${d.policy.name}`),
    });
    app.get('/global', async () => 'g');
    app.get('/route', { config: { rateLimit: { limiter: route.limiter } } }, async () => 'r');
    app.post('/global', async () => 'p');

    const table = [
      { method: 'GET', url: '/global', status: 200, by: 'global' },
      { method: 'HEAD', url: '/global', status: 200, by: 'global' },
      { method: 'POST', url: '/global', status: 200, by: 'global' },
      { method: 'GET', url: '/route', status: 200, by: 'route' },
      { method: 'HEAD', url: '/route', status: 200, by: 'route' },
      { method: 'GET', url: '/missing', status: 404, by: 'global' },
      { method: 'HEAD', url: '/missing', status: 404, by: 'global' },
      { method: 'DELETE', url: '/route', status: 404, by: 'global' },
    ] as const;
    for (const [i, row] of table.entries()) {
      const res = await app.inject({ method: row.method, url: row.url });
      expect(`step ${i} ${row.method} ${row.url}: ${res.statusCode}`).toBe(`step ${i} ${row.method} ${row.url}: ${row.status}`);
    }
    expect(global.keys).toHaveLength(6);
    expect(route.keys).toHaveLength(2);
    expect(decisions).toEqual(table.map((row) => `${row.method} ${row.url} ${row.by}`));
  });

  it('with limitNotFound, counts a 404 once and limits the not-found handler like any route', async () => {
    const clock = new ManualClock(0);
    const app = Fastify();
    await app.register(rateLimit, { capacity: 2, refillPerSecond: 1, clock, limitNotFound: true });
    let notFound = 0;
    app.setNotFoundHandler((_req, reply) => {
      notFound++;
      return reply.code(404).send('none');
    });
    expect((await app.inject('/a')).statusCode).toBe(404);
    expect((await app.inject('/b')).statusCode).toBe(404);
    const limited = await app.inject('/c');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(notFound).toBe(2);
  });

  it('leaves 404s uncounted and without headers when skip says request.is404', async () => {
    const clock = new ManualClock(0);
    const global = counting(roomy(clock, 'global'));
    const app = Fastify();
    await app.register(rateLimit, { limiter: global.limiter, skip: (req) => req.is404 });
    app.get('/', async () => 'ok');
    const missing = await app.inject('/missing');
    expect([missing.statusCode, missing.headers.ratelimit]).toEqual([404, undefined]);
    expect((await app.inject('/')).headers.ratelimit).toBe('"global";r=99;t=1');
    expect(global.keys).toHaveLength(1);
  });

  it('covers the routes and 404s of an encapsulated child context registered after it, once each', async () => {
    const clock = new ManualClock(0);
    const global = counting(roomy(clock, 'global'));
    const app = Fastify();
    await app.register(rateLimit, { limiter: global.limiter, limitNotFound: true });
    await app.register(
      async (child) => {
        child.get('/inside', async () => 'in');
        child.get('/own', { config: { rateLimit: { capacity: 1, refillPerSecond: 1, clock } } }, async () => 'own');
        child.setNotFoundHandler((_req, reply) => reply.code(404).send('child 404'));
      },
      { prefix: '/child' },
    );
    await app.register(async (grandparent) => {
      await grandparent.register(async (grandchild) => {
        grandchild.get('/deep', async () => 'deep');
      });
    });
    expect((await app.inject('/child/inside')).statusCode).toBe(200);
    expect((await app.inject('/child/nothing')).body).toBe('child 404');
    expect((await app.inject('/deep')).statusCode).toBe(200);
    expect(global.keys).toHaveLength(3);
    expect((await app.inject('/child/own')).statusCode).toBe(200);
    expect((await app.inject('/child/own')).statusCode).toBe(429);
    expect(global.keys).toHaveLength(3);
  });

  it('also covers a sibling context registered before it, whose routes onRoute never saw', async () => {
    // Fastify hands a lifecycle hook added later to every existing child context; onRoute it does not.
    const clock = new ManualClock(0);
    const global = counting(roomy(clock, 'global'));
    const app = Fastify();
    await app.register(async (early) => {
      early.get('/early', async () => 'early');
      early.get('/early-own', { config: { rateLimit: { capacity: 1, refillPerSecond: 1, clock, name: 'own' } } }, async () => 'own');
      early.get('/early-free', { config: { rateLimit: false } }, async () => 'free');
    });
    await app.register(rateLimit, { limiter: global.limiter });
    expect((await app.inject('/early')).headers.ratelimit).toBe('"global";r=99;t=1');
    expect((await app.inject('/early-own')).headers.ratelimit).toBe('"own";r=0;t=1');
    expect((await app.inject('/early-own')).statusCode).toBe(429);
    expect((await app.inject('/early-free')).headers.ratelimit).toBeUndefined();
    expect(global.keys).toHaveLength(1);
  });

  it('limits a route added to the same instance before the plugin finished loading', async () => {
    const clock = new ManualClock(0);
    const global = counting(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock }));
    const app = Fastify();
    app.register(rateLimit, { limiter: global.limiter });
    app.get('/', async () => 'ok');
    expect((await app.inject('/')).statusCode).toBe(200);
    expect((await app.inject('/')).statusCode).toBe(429);
    expect(global.keys).toEqual(['127.0.0.1', '127.0.0.1']);
  });

  it('counts once per registration when the plugin is registered twice, each writing its own headers', async () => {
    const clock = new ManualClock(0);
    const outer = counting(roomy(clock, 'outer'));
    const inner = counting(roomy(clock, 'inner'));
    const app = Fastify();
    await app.register(rateLimit, { limiter: outer.limiter, headers: 'legacy' });
    await app.register(async (api) => {
      await api.register(rateLimit, { limiter: inner.limiter });
      api.get('/api', async () => 'api');
    });
    app.get('/top', async () => 'top');
    const api = await app.inject('/api');
    expect(api.headers['x-ratelimit-remaining']).toBe('99');
    expect(api.headers.ratelimit).toBe('"inner";r=99;t=1');
    expect((await app.inject('/top')).headers.ratelimit).toBeUndefined();
    expect([outer.keys.length, inner.keys.length]).toEqual([2, 1]);
  });
});
