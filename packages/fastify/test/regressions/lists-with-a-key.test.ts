/**
 * Regression: with a `key` function, the plugin never read `request.ip` (a key replaces the address,
 * and proxy-addr's work was saved), so `allowList` and `denyList`, which match that address, silently
 * matched nothing: an allowed address was counted, a denied one admitted. The plugin now reads the
 * address whenever core says decide does (core's `readsIp`: the default key, a key that declares
 * `client` such as routeKey, or either list).
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { rateLimit } from '../../src/index.js';

async function statuses(options: Parameters<typeof rateLimit>[1]): Promise<number[]> {
  const app = Fastify();
  await app.register(rateLimit, options);
  app.get('/', async () => 'ok');
  const got: number[] = [];
  for (let i = 0; i < 3; i++) got.push((await app.inject({ url: '/', remoteAddress: '198.51.100.7' })).statusCode);
  await app.close();
  return got;
}

const limiter = () => new FixedWindowLimiter({ limit: 1, windowMs: 60_000 });

it('passes an allowed address uncounted with a key function', async () => {
  expect(await statuses({ limiter: limiter(), key: () => 'k', allowList: ['198.51.100.0/24'] })).toEqual([200, 200, 200]);
});

it('answers a denied address 403 with a key function', async () => {
  expect(await statuses({ limiter: limiter(), key: () => 'k', denyList: ['198.51.100.7'] })).toEqual([403, 403, 403]);
});
