/**
 * Over a real socket: the server listens on 127.0.0.1 (an ephemeral port) and a real HTTP client sees
 * the headers, the 429 and its Retry-After; the key is the socket's address.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { counting } from './helpers.js';

const clock = new ManualClock(0);
const limiter = counting(new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock, name: 'socket' }));
const app = Fastify();
let base = '';

beforeAll(async () => {
  await app.register(rateLimit, { limiter: limiter.limiter });
  app.get('/', async () => ({ hello: 'world' }));
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  base = address;
});

afterAll(() => app.close());

it('limits real HTTP requests by the socket address and recovers after Retry-After', async () => {
  const answers = [];
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${base}/`);
    answers.push([res.status, res.headers.get('ratelimit'), res.headers.get('retry-after'), res.headers.get('content-type')]);
    await res.arrayBuffer();
  }
  expect(answers).toEqual([
    [200, '"socket";r=1;t=1', null, 'application/json; charset=utf-8'],
    [200, '"socket";r=0;t=2', null, 'application/json; charset=utf-8'],
    [429, '"socket";r=0;t=1', '1', 'application/problem+json'],
  ]);
  clock.advance(1000);
  const retry = await fetch(`${base}/`);
  expect([retry.status, await retry.json()]).toEqual([200, { hello: 'world' }]);
  expect(new Set(limiter.keys)).toEqual(new Set(['127.0.0.1']));
});
