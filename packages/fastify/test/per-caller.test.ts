/**
 * Limits from who the caller is, through Fastify (inject, and a real socket for the gone client):
 * async key, skip, cost and plan are awaited; a rejected lookup reaches the error handler, uncounted;
 * a client gone during the lookup is not counted; request.rateLimit carries the decision; plans answer
 * with their own policy and body; `global: false` limits only the routes that ask for a limit.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import Fastify, { type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { counting } from './helpers.js';

const window = (limit: number, name: string, clock = new ManualClock(0)) => new FixedWindowLimiter({ limit, windowMs: 60_000, name, clock });
const lookup = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
const apiKey = (request: FastifyRequest) => String(request.headers['x-api-key'] ?? 'none');
const apps: ReturnType<typeof Fastify>[] = [];
afterEach(async () => void (await Promise.all(apps.splice(0).map((a) => a.close()))));

function app() {
  const a = Fastify();
  apps.push(a);
  return a;
}

describe('async hooks', () => {
  it('counts each caller under the key an async lookup found, and leaves the decision on the request', async () => {
    const fastify = app();
    await fastify.register(rateLimit, { limiter: window(2, 'w'), key: (r) => lookup(`tenant:${apiKey(r)}`) });
    const seen: unknown[] = [];
    fastify.get('/', async (request) => (seen.push([request.rateLimit?.remaining, request.rateLimit?.policy.name]), 'ok'));
    const statuses: number[] = [];
    for (const caller of ['a', 'a', 'b', 'b', 'a']) statuses.push((await fastify.inject({ url: '/', headers: { 'x-api-key': caller } })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect(seen).toEqual([
      [1, 'w'],
      [0, 'w'],
      [1, 'w'],
      [0, 'w'],
    ]);
  });

  it('awaits async skip and cost', async () => {
    const counted = counting(window(5, 'w'));
    const fastify = app();
    await fastify.register(rateLimit, {
      limiter: counted.limiter,
      skip: (r) => lookup(r.headers['x-internal'] === 'yes'),
      cost: (r) => lookup(Number((r.query as { n?: string }).n ?? 1)),
    });
    fastify.get('/', async () => 'ok');
    expect((await fastify.inject({ url: '/', headers: { 'x-internal': 'yes' } })).statusCode).toBe(200);
    expect((await fastify.inject('/?n=3')).headers['ratelimit']).toBe('"w";r=2;t=60');
    expect((await fastify.inject('/?n=3')).statusCode).toBe(429);
    expect(counted.costs).toEqual([3, 3]);
  });

  it('hands a rejected lookup to the error handler, uncounted', async () => {
    const counted = counting(window(5, 'w'));
    const errors: unknown[] = [];
    const fastify = app();
    fastify.setErrorHandler((error, _request, reply) => void (errors.push(error), reply.code(500).send('broken')));
    const broken = new Error('api key store down');
    await fastify.register(rateLimit, { limiter: counted.limiter, key: () => Promise.reject(broken) });
    fastify.get('/', async () => 'ok');
    expect((await fastify.inject('/')).statusCode).toBe(500);
    expect([errors, counted.keys]).toEqual([[broken], []]);
  });

  it('does not count a client that went away while its key was looked up', async () => {
    const counted = counting(window(5, 'w'));
    const waiting: (() => void)[] = [];
    const fastify = app();
    const closed: Promise<void>[] = [];
    fastify.addHook('onRequest', (request, _reply, done) => void (closed.push(new Promise((c) => request.raw.socket.once('close', () => c()))), done()));
    await fastify.register(rateLimit, { limiter: counted.limiter, key: (r) => new Promise<string>((resolve) => waiting.push(() => resolve(apiKey(r)))) });
    let ran = 0;
    fastify.get('/', async () => (ran++, 'ok'));
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const client = httpRequest({ host: '127.0.0.1', port: (fastify.server.address() as AddressInfo).port, path: '/', headers: { 'x-api-key': 'gone' } });
    client.on('error', () => {});
    client.end();
    while (waiting.length === 0) await new Promise(setImmediate);
    client.destroy();
    await closed[0];
    waiting.shift()!();
    for (let i = 0; i < 3; i++) await new Promise(setImmediate);
    expect([counted.keys, ran]).toEqual([[], 0]);
  });
});

describe('plans', () => {
  it('answers each caller by its plan, found asynchronously: its limit, RateLimit-Policy and body', async () => {
    const clock = new ManualClock(0);
    const tiers: Record<string, 'free' | 'pro'> = { k1: 'free', k2: 'pro' };
    const fastify = app();
    await fastify.register(rateLimit, { plans: { free: window(1, 'free', clock), pro: window(2, 'pro', clock) }, plan: (r) => lookup(tiers[apiKey(r)] ?? 'free'), key: apiKey });
    fastify.get('/', async () => 'ok');
    const sent: string[] = [];
    for (const k of ['k1', 'k1', 'k2', 'k2', 'k2']) {
      const res = await fastify.inject({ url: '/', headers: { 'x-api-key': k } });
      sent.push(`${k} ${res.statusCode} ${res.headers['ratelimit-policy']}${res.statusCode === 429 ? ` ${res.json()['violated-policies']}` : ''}`);
    }
    expect(sent).toEqual(['k1 200 "free";q=1;w=60', 'k1 429 "free";q=1;w=60 free', 'k2 200 "pro";q=2;w=60', 'k2 200 "pro";q=2;w=60', 'k2 429 "pro";q=2;w=60 pro']);
  });

  it('a route naming no limiter option keeps the registration’s plans', async () => {
    const fastify = app();
    await fastify.register(rateLimit, { plans: { free: window(1, 'free') }, plan: () => 'free', key: () => 'k' });
    fastify.get('/heavy', { config: { rateLimit: { cost: () => 1 } } }, async () => 'ok');
    expect((await fastify.inject('/heavy')).headers['ratelimit-policy']).toBe('"free";q=1;w=60');
    expect((await fastify.inject('/heavy')).statusCode).toBe(429);
  });
});

describe('global: false', () => {
  it('limits only the routes whose config.rateLimit asks for a limit', async () => {
    const fastify = app();
    await fastify.register(rateLimit, { global: false, limiter: window(1, 'w'), key: () => 'k' });
    fastify.get('/open', async (request) => String(request.rateLimit));
    fastify.get('/limited', { config: { rateLimit: {} } }, async () => 'ok');
    fastify.get('/own', { config: { rateLimit: { limit: 2, algorithm: 'fixed-window', windowMs: 1000 } } }, async () => 'ok');
    const statuses = async (url: string, n: number) => Promise.all(Array.from({ length: n }, () => fastify.inject(url).then((r) => r.statusCode)));
    expect(await statuses('/open', 3)).toEqual([200, 200, 200]);
    expect((await fastify.inject('/open')).headers['ratelimit']).toBeUndefined();
    expect((await fastify.inject('/open')).body).toBe('undefined');
    expect(await statuses('/limited', 2)).toEqual([200, 429]);
    expect(await statuses('/own', 3)).toEqual([200, 200, 429]);
  });

  it('is checked at registration, and refused in a route', async () => {
    await expect(app().register(rateLimit, { global: 'no' as never })).rejects.toThrowError(new TypeError('rateLimit: global must be a boolean, got "no"'));
    const fastify = app();
    await fastify.register(rateLimit, {});
    // @ts-expect-error global is registration only: a route's type refuses it as run time does
    expect(() => fastify.get('/', { config: { rateLimit: { global: false } } }, async () => 'ok')).toThrowError(
      new TypeError('rateLimit: config.rateLimit of route GET /: global applies to the registration only, not to a route'),
    );
  });
});
