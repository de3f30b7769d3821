/**
 * rate-limiter-flexible's verbs while Redis is absent (a port where nothing listens): each answers
 * within the store's timeout, never rejects, and is reported once per call as a 'failure' naming its
 * operation; a charge is then counted by the policy's fallback (where requests are decided meanwhile,
 * so the next consume there sees it) and a usage read reads the fallback; a block is reported and lost.
 */
import { BanLimiter, FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, RedisStore } from '../src/index.js';
import { freePort } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const TIMEOUT_MS = 50;
const closers: (() => unknown)[] = [];

afterAll(() => {
  for (const close of closers) close();
});

describeRedis('the verbs while Redis is absent', () => {
  it('answer by the fallback within the timeout, reported by operation; a block is reported and lost', async () => {
    const client = new Redis({ port: await freePort(), host: '127.0.0.1', retryStrategy: () => 50, lazyConnect: false });
    client.on('error', () => {});
    closers.push(() => client.disconnect());
    const store = new RedisStore({ client, timeoutMs: TIMEOUT_MS, failureWarning: false });
    const events: FailureInfo[] = [];
    store.on('failure', (info) => events.push(info));
    const clock = new ManualClock(1_700_000_040_000);
    const limiter = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 3, windowMs: 60_000, store, clock }), banMs: 60_000 });

    const started = performance.now();
    const charged = await limiter.charge('k', 5);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 250);
    expect(charged).toMatchObject({ used: 5, remaining: 0, blockedMs: 0 });
    expect(await limiter.usage('k')).toMatchObject({ used: 5, remaining: 0 });
    expect((await limiter.consume('k')).allowed).toBe(false); // the fallback holds the charge
    await limiter.block('k', 10_000);
    expect(events.map((e) => e.operation)).toEqual(['charge', 'usage', 'consume', 'block']);
  });
});
