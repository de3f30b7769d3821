/**
 * Counting by outcome and settling the real cost through Fastify (inject): failed responses given
 * back, the cost settled by the response's size, and an error answered by Fastify's error handler
 * counted as the 500 it is.
 */
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

const window = (limit: number) => new FixedWindowLimiter({ limit, windowMs: 60_000, name: 'w', clock: new ManualClock(0) });

async function app(options: object) {
  const fastify = Fastify();
  await fastify.register(rateLimit, { key: () => 'k', ...options });
  fastify.get('/', async (request, reply) => {
    const q = request.query as { status?: string; bytes?: string; fail?: string };
    if (q.fail !== undefined) throw new Error('route broke');
    return reply.code(Number(q.status ?? 200)).send(q.bytes === undefined ? 'ok' : 'x'.repeat(Number(q.bytes)));
  });
  return fastify;
}

describe('countOutcome and settle', () => {
  it('gives failed responses, errors included, their charge back (skipFailedRequests)', async () => {
    const fastify = await app({ limiter: window(2), countOutcome: (o: { status: number }) => o.status < 400 });
    const statuses: number[] = [];
    for (const url of ['/?status=503', '/?fail=1', '/?status=404', '/', '/', '/']) statuses.push((await fastify.inject(url)).statusCode);
    expect(statuses).toEqual([503, 500, 404, 200, 200, 429]);
  });

  it('settles the cost by the response size, to the exact unit', async () => {
    const limiter = window(10);
    const fastify = await app({ limiter, settle: (o: { contentLength?: number }) => Math.ceil((o.contentLength ?? 0) / 100) });
    expect((await fastify.inject('/?bytes=250')).headers['ratelimit']).toBe('"w";r=9;t=60');
    expect(limiter.peek('k').remaining).toBe(10 - 3 - 1);
    await fastify.inject('/?bytes=0');
    expect(limiter.peek('k').remaining).toBe(10 - 3 - 1);
    await fastify.inject('/?bytes=2000');
    expect((await fastify.inject('/')).statusCode).toBe(429);
  });
});
