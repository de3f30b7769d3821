/**
 * A request no route matched (Fastify's not-found handler, `request.is404`) is not limited by default,
 * as @fastify/rate-limit leaves it: no count, no headers, a 404 for an unknown path however many were
 * spent, and the budget of the client's real routes untouched. `limitNotFound: true` counts it under the
 * registration's limit instead, so a path scanner meets 429. Either way a route's own 404 (a matched
 * route answering 404) is that route's request and counts. The option is the registration's only.
 */
import { ManualClock } from '@ratekeeper/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

async function app(limitNotFound?: boolean) {
  const fastify = Fastify();
  const options = { limit: 2, windowMs: 60_000, clock: new ManualClock(0) };
  await fastify.register(rateLimit, limitNotFound === undefined ? options : { ...options, limitNotFound });
  fastify.get('/', async () => 'ok');
  fastify.get('/gone', async (_request, reply) => reply.code(404).send('gone'));
  return fastify;
}

const statuses = async (fastify: Awaited<ReturnType<typeof app>>, urls: string[]) => {
  const seen: string[] = [];
  for (const url of urls) {
    const res = await fastify.inject(url);
    seen.push(`${url} ${res.statusCode}${res.headers.ratelimit === undefined ? '' : ' counted'}`);
  }
  return seen;
};

describe('requests no route matched', () => {
  it('are neither counted nor limited by default, as with @fastify/rate-limit', async () => {
    const fastify = await app();
    expect(await statuses(fastify, ['/missing', '/missing', '/missing', '/', '/', '/'])).toEqual([
      '/missing 404',
      '/missing 404',
      '/missing 404',
      '/ 200 counted',
      '/ 200 counted',
      '/ 429 counted',
    ]);
    expect(await statuses(fastify, ['/missing'])).toEqual(['/missing 404']);
  });

  it('are counted under the registration limit with limitNotFound: true', async () => {
    const fastify = await app(true);
    expect(await statuses(fastify, ['/missing', '/missing', '/missing', '/'])).toEqual(['/missing 404 counted', '/missing 404 counted', '/missing 429 counted', '/ 429 counted']);
  });

  it("count a matched route's own 404 either way", async () => {
    for (const setting of [undefined, false, true]) {
      const fastify = await app(setting);
      expect(await statuses(fastify, ['/gone', '/gone', '/gone']), String(setting)).toEqual(['/gone 404 counted', '/gone 404 counted', '/gone 429 counted']);
    }
  });

  it('refuse a limitNotFound that is no boolean, or one given to a route', async () => {
    await expect(Fastify().register(rateLimit, { limitNotFound: 'yes' } as never)).rejects.toThrowError(new TypeError('rateLimit: limitNotFound must be a boolean, got "yes"'));
    const fastify = Fastify();
    await fastify.register(rateLimit, { limit: 1, windowMs: 1000 });
    expect(() => fastify.get('/r', { config: { rateLimit: { limitNotFound: true } as never } }, async () => 'r')).toThrowError(
      new TypeError('rateLimit: config.rateLimit of route GET /r: limitNotFound applies to the registration only, not to a route'),
    );
  });
});
