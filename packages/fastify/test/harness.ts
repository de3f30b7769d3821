/**
 * Fault and counting harnesses, each run against the real plugin and against a deliberately broken
 * variant (test/mutants/) that it must catch. A harness takes the plugin to register and reports what
 * it measured; the tests state what the real plugin must give.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { Writable } from 'node:stream';
import Fastify, { type FastifyPluginCallback, type FastifyReply } from 'fastify';
import type { FastifyRateLimitOptions } from '../src/index.js';
import { counting, failing, later } from './helpers.js';

export type Plugin = FastifyPluginCallback<FastifyRateLimitOptions>;

/**
 * concurrentBurst fires `requests` requests at once at an asynchronous limiter of capacity `capacity`
 * and reports how many reached the route handler and how many were answered 429.
 */
export async function concurrentBurst(plugin: Plugin, capacity: number, requests: number) {
  const clock = new ManualClock(0);
  const app = Fastify();
  await app.register(plugin, { limiter: later(new TokenBucketLimiter({ capacity, refillPerSecond: 1, clock })) });
  let handled = 0;
  app.get('/', async () => {
    handled++;
    return 'ok';
  });
  const answers = await Promise.all(Array.from({ length: requests }, () => app.inject('/')));
  return { handled, ok: answers.filter((r) => r.statusCode === 200).length, limited: answers.filter((r) => r.statusCode === 429).length };
}

/** leakedText answers one request on a limiter whose promise rejects with `secret`, and returns all the client saw. */
export async function leakedText(plugin: Plugin, secret: string): Promise<{ status: number; text: string }> {
  const app = Fastify();
  const policies = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 }).policies;
  await app.register(plugin, { limiter: failing(policies, new Error(secret)) });
  app.get('/', async () => 'ok');
  const res = await app.inject('/');
  return { status: res.statusCode, text: `${JSON.stringify(res.headers)}\n${res.body}` };
}

/** consumesPerRequest sends one request of each kind and reports how many consumes each one caused. */
export async function consumesPerRequest(plugin: Plugin): Promise<Record<string, number>> {
  const limiter = counting(new TokenBucketLimiter({ capacity: 100, refillPerSecond: 1, clock: new ManualClock(0) }));
  const app = Fastify();
  app.get('/early', async () => 'early');
  await app.register(plugin, { limiter: limiter.limiter, limitNotFound: true }); // 404s counted, for the mutant that cannot see them
  app.get('/route', async () => 'route');
  const counts: Record<string, number> = {};
  for (const [method, url] of [
    ['GET', '/route'],
    ['HEAD', '/route'],
    ['GET', '/missing'],
    ['POST', '/route'],
    ['GET', '/early'],
  ] as const) {
    const before = limiter.keys.length;
    await app.inject({ method, url });
    counts[`${method} ${url}`] = limiter.keys.length - before;
  }
  return counts;
}

/**
 * answersWhileOnSendRuns limits one request whose synchronous custom handler answers while an
 * asynchronous onSend hook is still running, and reports the response and every warning Fastify logged
 * (a second answer logs "Reply was already sent").
 */
export async function answersWhileOnSendRuns(plugin: Plugin) {
  const warnings: string[] = [];
  const stream = new Writable({
    write(line, _encoding, callback) {
      warnings.push(JSON.parse(String(line)).msg as string);
      callback();
    },
  });
  const app = Fastify({ logger: { level: 'warn', stream } });
  const handler = (_req: unknown, reply: FastifyReply): void => void reply.header('content-type', 'text/plain').send('slow down');
  await app.register(plugin, { capacity: 1, refillPerSecond: 1, clock: new ManualClock(0), handler });
  app.addHook('onSend', async (_req, reply, payload) => {
    await new Promise((resolve) => setImmediate(resolve));
    reply.header('x-on-send', 'ran');
    return payload;
  });
  app.get('/', async () => 'ok');
  await app.inject('/');
  const res = await app.inject('/');
  for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
  return { status: res.statusCode, body: res.body, onSend: res.headers['x-on-send'], warnings };
}
