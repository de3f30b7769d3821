/**
 * forwarded serves Fastify with `trustProxy: true` and the rate limiter on a real socket, so that a
 * test can send any X-Forwarded-For and see what Fastify made of it (`request.ip`, verbatim), the
 * key counted under, the status, and what reached the error handler.
 */
import { ManualClock, type RateLimitBaseOptions, TokenBucketLimiter } from '@ratekeeper/core';
import Fastify, { type FastifyRequest } from 'fastify';
import { afterEach } from 'vitest';
import { rateLimit } from '../../src/index.js';
import { counting } from '../helpers.js';

const apps: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

export interface Forwarded {
  /** Sends one request with `xff` as X-Forwarded-For; answers its status. */
  send(xff: string): Promise<number>;
  readonly keys: readonly string[];
  /** request.ip of every request that reached the route. */
  readonly ips: readonly string[];
  /** The name of every error that reached the error handler. */
  readonly errors: readonly string[];
}

export async function forwarded(capacity: number, options: RateLimitBaseOptions<FastifyRequest> = {}): Promise<Forwarded> {
  const counted = counting(new TokenBucketLimiter({ capacity, refillPerSecond: 1, clock: new ManualClock(0) }));
  const app = Fastify({ trustProxy: true });
  apps.push(app);
  const ips: string[] = [];
  const errors: string[] = [];
  await app.register(rateLimit, { limiter: counted.limiter, ...options });
  app.setErrorHandler((error, _req, reply) => {
    errors.push((error as Error).name);
    return reply.code(500).send('error');
  });
  app.get('/', async (req) => (ips.push(req.ip), 'ok'));
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const send = async (xff: string) => {
    const res = await fetch(`${base}/`, { headers: { 'x-forwarded-for': xff } });
    await res.arrayBuffer();
    return res.status;
  };
  return { send, keys: counted.keys, ips, errors };
}
