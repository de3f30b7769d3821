/**
 * Bun: `Bun.serve` with @ratekeeper/fetch (address from server.requestIP) and Hono on Bun (hono/bun's
 * getConnInfo), both in one Bun process started once for this file, plus the redis scenario on a
 * redis-server of its own through ioredis from Bun.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { available, bunBinary, type Started, start } from './launch.js';
import { type RedisProcess, startRedis } from './redis.js';
import { runtimeSuite } from './suite.js';

const bun = bunBinary();
let server: Started | undefined;
let redis: RedisProcess | undefined;

(available('Bun', bun) ? describe : describe.skip)('Bun', () => {
  beforeAll(async () => {
    if (bun === undefined) throw new Error('Bun is missing (install the `bun` npm package); CI must have it');
    redis = await startRedis();
    server = await start(bun, ['bun.mjs'], { REDIS_PORT: String(redis.port) });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
  });
  runtimeSuite(`Bun ${bun === undefined ? '' : 'serve'}`.trim(), () => server!.url, ['f', 'h'], { redis: true, outcomes: 'all' });
});
