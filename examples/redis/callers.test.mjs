/**
 * The per-caller examples on Redis: examples/api-keys (async key lookup, two plans, settle by response
 * size: refunds and top-ups in Redis scripts) and examples/login (only failures count, then a ban kept
 * in Redis) run their own suites with a RedisStore on a redis-server started here, on a free loopback
 * port. Each test gets its own key prefix; no store failure may happen. Skipped without redis-server,
 * except in CI.
 */
import { execFileSync } from 'node:child_process';
import { RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { apiKeysSuite } from '../api-keys/suite.mjs';
import { loginSuite } from '../login/suite.mjs';
import { startRedis, stop } from './processes.mjs';

const hasRedis = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(hasRedis || process.env.CI === 'true')('the per-caller examples on Redis', () => {
  let redis;
  let client;
  let stores = 0;
  const failures = [];

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.port, '127.0.0.1');
  });

  afterAll(async () => {
    expect(failures).toEqual([]);
    client?.disconnect();
    if (redis) await stop(redis.child);
  });

  /** store is a client-time RedisStore (the suites move a ManualClock) under a fresh prefix. */
  const store = () => {
    const s = new RedisStore({ client, time: 'client', timeoutMs: 2_000, prefix: `ex${stores++}:` });
    s.on('failure', (info) => failures.push(info));
    return s;
  };

  apiKeysSuite('Redis', store);
  loginSuite('Redis', store);
});
