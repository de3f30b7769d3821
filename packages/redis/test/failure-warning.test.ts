/**
 * A RedisStore that cannot reach Redis says so: without a 'failure' listener, its first failure of
 * each cause warns once per process (a 'RatekeeperWarning' on Node's process warnings, the trust-proxy
 * warning's channel), naming the cause, the fix and how to silence it. A node-redis client never
 * `connect()`ed and an ioredis client with lazyConnect and no offline queue are named as "not
 * connected: call `await client.connect()`"; an ioredis lazyConnect client with its offline queue
 * connects by itself and warns nothing. A 'failure' listener or `failureWarning: false` silences it.
 * Decisions are unchanged: the fallback decides until the client connects, Redis after.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { forgetFailureWarnings } from '@ratekeeper/core/store';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, expect, it } from 'vitest';
import { RedisStore, type RedisStoreOptions } from '../src/index.js';
import { type RedisServer, startServer, waitFor } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { warningsOnProcess } from '@ratekeeper/store-contract';

const { ours, settle } = warningsOnProcess(forgetFailureWarnings);
const closers: (() => unknown)[] = [];
let server: RedisServer | undefined;

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await server?.stop();
});

async function port(): Promise<number> {
  server ??= await startServer();
  return server.port;
}

function limiterOn(client: RedisStoreOptions['client'], extra: Partial<RedisStoreOptions> = {}) {
  const store = new RedisStore({ client, time: 'client', prefix: `warn${Math.random().toString(36).slice(2)}:`, timeoutMs: 200, ...extra });
  return { store, limiter: new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock: new ManualClock(0), store, name: 'w' }) };
}

function neverConnected() {
  const client = createClient({ socket: { port: 1, host: '127.0.0.1' } });
  client.on('error', () => {});
  return client;
}

describeRedis('a RedisStore that never reached Redis', () => {
  it('warns once, naming the never-connected node-redis client and the fix, and decides by fallback meanwhile', async () => {
    const client = createClient({ socket: { port: await port(), host: '127.0.0.1' } });
    client.on('error', () => {});
    closers.push(() => client.isOpen && client.destroy());
    const { limiter } = limiterOn(client);
    const before = await Promise.all([limiter.consume('k'), limiter.consume('k'), limiter.consume('k')]);
    await settle();
    expect(before.map((d) => d.failure)).toEqual(['fallback', 'fallback', 'fallback']);
    expect(ours().map((w) => (w as Error & { code?: string }).code)).toEqual(['RATEKEEPER_REDIS_NOT_CONNECTED']);
    const [warning] = ours();
    expect(warning?.message).toContain('RedisStore: Redis could not decide');
    expect(warning?.message).toContain("onFailure: 'fallback'");
    expect(warning?.message).toContain('the node-redis client is not connected: call `await client.connect()` before the first request');
    expect(warning?.message).toContain("store.on('failure'");
    expect(warning?.message).toContain('failureWarning: false');
    await client.connect();
    // Redis decides again once the store's probe finds it (probeIntervalMs after the failures).
    await waitFor('Redis deciding again', async () => (await limiter.consume('k')).failure === undefined);
    await settle();
    expect(ours()).toHaveLength(1);
  });

  it('names an ioredis client made with lazyConnect and no offline queue the same way', async () => {
    const client = new Redis({ port: await port(), host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false });
    client.on('error', () => {});
    closers.push(() => client.disconnect());
    const { limiter } = limiterOn(client);
    expect((await limiter.consume('k')).failure).toBe('fallback');
    await settle();
    expect(ours().map((w) => (w as Error & { code?: string }).code)).toEqual(['RATEKEEPER_REDIS_NOT_CONNECTED']);
    expect(ours()[0]?.message).toContain('the ioredis client is not connected yet');
  });

  it('says nothing for an ioredis lazyConnect client with its offline queue: it connects by itself', async () => {
    const client = new Redis({ port: await port(), host: '127.0.0.1', lazyConnect: true });
    client.on('error', () => {});
    closers.push(() => client.disconnect());
    const { limiter } = limiterOn(client);
    expect((await limiter.consume('k')).failure).toBeUndefined();
    await settle();
    expect(ours()).toEqual([]);
  });

  it("is silenced by a 'failure' listener, and by failureWarning: false", async () => {
    const listened = limiterOn(neverConnected());
    const seen: string[] = [];
    listened.store.on('failure', (info) => void seen.push(info.reason));
    expect((await listened.limiter.consume('k')).failure).toBe('fallback');
    const off = limiterOn(neverConnected(), { failureWarning: false });
    expect((await off.limiter.consume('k')).failure).toBe('fallback');
    await settle();
    expect(seen).toEqual(['connection']);
    expect(ours()).toEqual([]);
    // Without either, a store says so: the default.
    const quiet = limiterOn(neverConnected());
    expect((await quiet.limiter.consume('k')).failure).toBe('fallback');
    await settle();
    expect(ours()).toHaveLength(1);
  });

  it('refuses a failureWarning that is not a boolean, naming it', () => {
    expect(() => new RedisStore({ client: neverConnected(), failureWarning: 'no' as never })).toThrow(/RedisStore: failureWarning must be a boolean/);
  });
});
