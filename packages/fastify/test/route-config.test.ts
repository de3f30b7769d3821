/**
 * Per-route `config.rateLimit`: `false` exempts the route, an object replaces the registration's plan
 * for that route (merged over the registration options), prepared once at route registration so a bad
 * option fails at startup, naming the route and the option.
 */
import { type Decision, ManualClock, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type FastifyRateLimitOptions, rateLimit } from '../src/index.js';
import { counting, rateLimitHeaders } from './helpers.js';

async function appWith(options: FastifyRateLimitOptions): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(rateLimit, options);
  return app;
}

describe('config.rateLimit: false', () => {
  it('exempts the route: no count, no headers, even once the global budget is spent', async () => {
    const clock = new ManualClock(0);
    const global = counting(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock }));
    const app = await appWith({ limiter: global.limiter });
    app.get('/limited', async () => 'limited');
    app.get('/health', { config: { rateLimit: false } }, async () => 'up');
    expect((await app.inject('/limited')).statusCode).toBe(200);
    expect((await app.inject('/limited')).statusCode).toBe(429);
    for (let i = 0; i < 5; i++) {
      const res = await app.inject('/health');
      expect(res.statusCode).toBe(200);
      expect(rateLimitHeaders(res.headers)).toEqual({});
    }
    expect(global.keys).toHaveLength(2);
  });
});

describe('config.rateLimit: { … }', () => {
  it('gives the route its own budget, independent of the global one both ways', async () => {
    const clock = new ManualClock(0);
    const app = await appWith({ capacity: 2, refillPerSecond: 1, clock, name: 'global' });
    app.get('/', async () => 'global');
    app.get('/strict', { config: { rateLimit: { capacity: 1, name: 'strict' } } }, async () => 'strict');
    expect((await app.inject('/strict')).headers.ratelimit).toBe('"strict";r=0;t=1');
    expect((await app.inject('/strict')).statusCode).toBe(429);
    expect((await app.inject('/')).headers.ratelimit).toBe('"global";r=1;t=1');
    expect((await app.inject('/')).statusCode).toBe(200);
    expect((await app.inject('/')).statusCode).toBe(429);
    clock.advance(1000);
    expect((await app.inject('/strict')).statusCode).toBe(200);
  });

  it('inherits key, headers, handler and the store clock from the registration', async () => {
    const clock = new ManualClock(0);
    const handled: string[] = [];
    const app = await appWith({
      capacity: 5,
      refillPerSecond: 1,
      clock,
      headers: 'legacy',
      key: (req) => String(req.headers['x-user']),
      handler: (req, reply) => {
        handled.push(req.url);
        return reply.send({ slow: 'down' });
      },
    });
    app.get('/strict', { config: { rateLimit: { capacity: 1 } } }, async () => 'ok');
    const alice = { 'x-user': 'alice' };
    const first = await app.inject({ url: '/strict', headers: alice });
    expect(rateLimitHeaders(first.headers)).toEqual({ 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' });
    expect((await app.inject({ url: '/strict', headers: { 'x-user': 'bob' } })).statusCode).toBe(200);
    const limited = await app.inject({ url: '/strict', headers: alice });
    expect([limited.statusCode, limited.json()]).toEqual([429, { slow: 'down' }]);
    expect(handled).toEqual(['/strict']);
    clock.advance(1000);
    expect((await app.inject({ url: '/strict', headers: alice })).statusCode).toBe(200);
  });

  it('lets a route override an inherited option', async () => {
    const clock = new ManualClock(0);
    const app = await appWith({ capacity: 5, refillPerSecond: 1, clock, headers: 'legacy' });
    app.get('/draft', { config: { rateLimit: { capacity: 3, headers: 'draft-10', name: 'draft' } } }, async () => 'ok');
    expect(rateLimitHeaders((await app.inject('/draft')).headers)).toEqual({ ratelimit: '"draft";r=2;t=1', 'ratelimit-policy': '"draft";q=3;w=3' });
  });

  it('shares the registration limiter when the route names no limiter option', async () => {
    const clock = new ManualClock(0);
    const app = await appWith({ capacity: 10, refillPerSecond: 1, clock, name: 'global' });
    app.get('/', async () => 'cheap');
    app.get('/expensive', { config: { rateLimit: { cost: () => 4 } } }, async () => 'expensive');
    app.get('/watched', { config: { rateLimit: { shadow: true } } }, async () => 'watched');
    expect((await app.inject('/expensive')).headers.ratelimit).toBe('"global";r=6;t=4');
    expect((await app.inject('/')).headers.ratelimit).toBe('"global";r=5;t=5');
    expect((await app.inject('/expensive')).headers.ratelimit).toBe('"global";r=1;t=9');
    expect((await app.inject('/expensive')).statusCode).toBe(429);
    const watched = await app.inject('/watched');
    expect([watched.statusCode, watched.headers.ratelimit]).toEqual([200, '"global";r=0;t=10']);
    expect((await app.inject('/')).statusCode).toBe(429);
  });

  it('starts a shorthand route from the registration shorthand: { limit } under a sliding window keeps its window', async () => {
    const clock = new ManualClock(0);
    const app = await appWith({ algorithm: 'sliding-window', limit: 100, windowMs: 30_000, clock });
    app.get('/few', { config: { rateLimit: { limit: 5 } } }, async () => 'few');
    app.get('/bucket', { config: { rateLimit: { algorithm: 'token-bucket', capacity: 2, refillPerSecond: 1 } } }, async () => 'bucket');
    expect((await app.inject('/few')).headers['ratelimit-policy']).toBe('"sw-5-30000";q=5;w=30');
    expect((await app.inject('/bucket')).headers['ratelimit-policy']).toBe('"tb-2-1";q=2;w=2');
    await app.inject('/bucket');
    expect((await app.inject('/bucket')).statusCode).toBe(429);
    clock.advance(1000);
    expect((await app.inject('/bucket')).statusCode).toBe(200);
  });

  it('uses a ready limiter given on the route, which the registration shorthand does not touch', async () => {
    const clock = new ManualClock(0);
    const own = counting(new SlidingWindowLimiter({ limit: 1, windowMs: 1000, clock, name: 'own' }));
    const app = await appWith({ capacity: 5, refillPerSecond: 1, clock });
    app.get('/', { config: { rateLimit: { limiter: own.limiter } } }, async () => 'ok');
    expect((await app.inject('/')).headers.ratelimit).toBe('"own";r=0;t=2');
    expect((await app.inject('/')).statusCode).toBe(429);
    expect(own.keys).toHaveLength(2);
  });

  it('prepares one plan per options object: a route and its automatic HEAD share it, as do routes given the same object', async () => {
    const clock = new ManualClock(0);
    const app = await appWith({ capacity: 100, refillPerSecond: 1, clock });
    const shared = { capacity: 3, name: 'shared' };
    app.get('/a', { config: { rateLimit: shared } }, async () => 'a');
    app.get('/b', { config: { rateLimit: shared } }, async () => 'b');
    app.get('/c', { config: { rateLimit: { capacity: 3, name: 'shared' } } }, async () => 'c');
    expect((await app.inject('/a')).headers.ratelimit).toBe('"shared";r=2;t=1');
    expect((await app.inject({ method: 'HEAD', url: '/a' })).headers.ratelimit).toBe('"shared";r=1;t=2');
    expect((await app.inject('/b')).headers.ratelimit).toBe('"shared";r=0;t=3');
    expect((await app.inject('/c')).headers.ratelimit).toBe('"shared";r=2;t=1');
  });

  it('reports each decision of a route plan to the inherited onDecision', async () => {
    const clock = new ManualClock(0);
    const seen: Decision[] = [];
    const app = await appWith({ capacity: 5, refillPerSecond: 1, clock, onDecision: (d) => seen.push(d) });
    app.get('/', { config: { rateLimit: { capacity: 1, name: 'one' } } }, async () => 'ok');
    await app.inject('/');
    await app.inject('/');
    expect(seen.map((d) => [d.policy.name, d.allowed])).toEqual([
      ['one', true],
      ['one', false],
    ]);
  });
});

describe('route option validation', () => {
  const clock = new ManualClock(0);

  it('throws from the route registration, naming the route and the unknown option', async () => {
    const app = await appWith({ clock });
    expect(() => app.get('/x', { config: { rateLimit: { limt: 5 } as never } }, async () => 'x')).toThrow(
      new TypeError(`rateLimit: config.rateLimit of route GET /x: unknown option "limt": did you mean "limit"?`),
    );
  });

  it("names no option for a far-off name, and refuses message in Fastify's terms", async () => {
    const app = await appWith({ clock });
    expect(() => app.get('/y', { config: { rateLimit: { frobnicate: 1 } as never } }, async () => 'y')).toThrow(
      new TypeError(`rateLimit: config.rateLimit of route GET /y: unknown option "frobnicate"`),
    );
    expect(() => app.get('/z', { config: { rateLimit: { message: 'slow down' } as never } }, async () => 'z')).toThrow(
      new TypeError(
        `rateLimit: config.rateLimit of route GET /z: unknown option "message" of @ratekeeper/fastify: write a handler instead: handler: (request, reply) => reply.send('Too many requests') (it runs with the status already set to 429)`,
      ),
    );
  });

  it('names the route and keeps the RangeError of a bad size', async () => {
    const app = await appWith({ clock });
    expect(() => app.get('/x', { config: { rateLimit: { capacity: 0 } } }, async () => 'x')).toThrow(
      new RangeError('rateLimit: config.rateLimit of route GET /x: TokenBucketLimiter: capacity must be a positive integer, got 0'),
    );
  });

  it('rejects a value that is neither an options object nor false', async () => {
    const app = await appWith({ clock });
    expect(() => app.get('/x', { config: { rateLimit: true as never } }, async () => 'x')).toThrow(
      new TypeError('rateLimit: config.rateLimit of route GET /x must be an options object or false, got true'),
    );
  });

  it('rejects a shorthand size that does not fit the algorithm, and a handler that is not a function', async () => {
    const app = await appWith({ clock });
    // @ts-expect-error limit is no 'token-bucket' option: the route's type refuses it as run time does
    expect(() => app.get('/x', { config: { rateLimit: { algorithm: 'token-bucket', limit: 5 } } }, async () => 'x')).toThrow(
      /config\.rateLimit of route GET \/x: limit does not apply to algorithm 'token-bucket'/,
    );
    expect(() => app.get('/y', { config: { rateLimit: { handler: 'no' as never } } }, async () => 'y')).toThrow(
      /config\.rateLimit of route GET \/y: handler must be a function, got "no"/,
    );
  });

  it('fails startup when a plugin registers a bad route', async () => {
    const app = await appWith({ clock });
    app.register(async (child) => {
      child.post('/bad', { config: { rateLimit: { shadow: 'yes' as never } } }, async () => 'bad');
    });
    await expect(app.ready()).rejects.toThrow(/config\.rateLimit of route POST \/bad: shadow must be a boolean/);
  });

  it('answers 500 through the error handler for a bad option on a route the plugin never saw register', async () => {
    const app = Fastify();
    const errors: Error[] = [];
    app.setErrorHandler((error, _req, reply) => {
      errors.push(error as Error);
      return reply.code(500).send('failed');
    });
    app.get('/early', { config: { rateLimit: { capacity: -1 } } }, async () => 'never');
    await app.register(rateLimit, { clock });
    expect((await app.inject('/early')).statusCode).toBe(500);
    expect(errors.map((e) => [e.name, e.message])).toEqual([
      ['RangeError', 'rateLimit: config.rateLimit of route GET /early: TokenBucketLimiter: capacity must be a positive integer, got -1'],
    ]);
  });
});

describe("config.rateLimit: { mode: 'delay' }", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds the requests of that route on the shared budget, while other routes answer 429 at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const clock = new ManualClock(0);
    const app = await appWith({ capacity: 1, refillPerSecond: 1, clock, name: 'shared' });
    app.get('/', async () => 'now or never');
    app.get('/queue', { config: { rateLimit: { mode: 'delay', maxDelayMs: 2000 } } }, async () => 'queued');
    expect((await app.inject('/')).statusCode).toBe(200);
    expect((await app.inject('/')).statusCode).toBe(429);
    let done = false;
    const queued = app.inject('/queue').then((res) => ((done = true), res));
    while (vi.getTimerCount() === 0) await new Promise(setImmediate);
    clock.advance(999);
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    clock.advance(1);
    await vi.advanceTimersByTimeAsync(1);
    const res = await queued;
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit']).toBe('"shared";r=0;t=1');
  });
});

describe('config.rateLimit: { windowMs, limit }', () => {
  it("counts the peers' window app-wide and per route: each starts at its own first request", async () => {
    const clock = new ManualClock(1_700_000_007_000); // 7 s into an aligned 10 s window
    const app = await appWith({ windowMs: 10_000, limit: 2, clock });
    app.get('/', async () => 'global');
    app.get('/strict', { config: { rateLimit: { windowMs: 4000, limit: 1, name: 'strict' } } }, async () => 'strict');
    expect((await app.inject('/')).headers.ratelimit).toBe('"frw-2-10000";r=1;t=10');
    clock.advance(2000);
    expect((await app.inject('/strict')).headers.ratelimit).toBe('"strict";r=0;t=4');
    expect((await app.inject('/')).statusCode).toBe(200);
    const denied = await app.inject('/');
    expect([denied.statusCode, denied.headers['retry-after']]).toEqual([429, '8']);
    const strict = await app.inject('/strict');
    expect([strict.statusCode, strict.headers['retry-after']]).toEqual([429, '4']);
    clock.advance(4000);
    expect((await app.inject('/strict')).statusCode).toBe(200);
    const still = await app.inject('/');
    expect([still.statusCode, still.headers['retry-after']]).toEqual([429, '4']);
  });
});
