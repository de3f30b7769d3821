/**
 * Deno: `Deno.serve` with @ratekeeper/fetch (address from info.remoteAddr) and Hono on Deno
 * (hono/deno's getConnInfo), in one Deno process started once for this file, resolving the packages
 * from node_modules as a Deno project with a package.json does, plus the redis scenario through
 * ioredis from Deno.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { available, denoBinary, type Started, start } from './launch.js';
import { type RedisProcess, startRedis } from './redis.js';
import { runtimeSuite } from './suite.js';

const deno = denoBinary();
let server: Started | undefined;
let redis: RedisProcess | undefined;

(available('Deno', deno) ? describe : describe.skip)('Deno', () => {
  beforeAll(async () => {
    if (deno === undefined) throw new Error('Deno is missing (install the `deno` npm package); CI must have it');
    redis = await startRedis();
    server = await start(deno, ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', '--no-prompt', 'deno.mjs'], { REDIS_PORT: String(redis.port) });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
  });
  runtimeSuite('Deno.serve', () => server!.url, ['f', 'h'], { redis: true, outcomes: 'all' });
});
