/**
 * Redis answers, but with an error: memory exhausted (maxmemory with noeviction: OOM), a key holding
 * another type (WRONGTYPE), or a string ratekeeper did not write. The failure policy decides the
 * affected call only, other keys go on being decided by Redis, the 'failure' event carries the error,
 * and no error text reaches a Decision. A denial writes nothing, so an exhausted key is still denied by
 * Redis itself under OOM. The naive mutant (no failure layer) must reject instead.
 */
import { CompositeLimiter, type Decision, FixedWindowLimiter, SlidingWindowLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FailureInfo, type FailurePolicy, RedisStore, storageKey } from '../src/index.js';
import { SOLO_BELOW } from '../src/transport/batcher.js';
import { NaiveStore } from './mutants/naive-store.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';

let server: RedisServer;
let redis: Redis;
let failures: FailureInfo[] = [];

beforeAll(async () => {
  server = await startServer();
  redis = ioredis(server.port);
});

afterEach(() => {
  failures = [];
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

function limiterOn(onFailure: FailurePolicy, prefix = 'rk:') {
  const store = new RedisStore({ client: redis, onFailure, prefix, timeoutMs: 1000 });
  store.on('failure', (info) => failures.push(info));
  return new FixedWindowLimiter({ limit: 2, windowMs: 3_600_000, store });
}

/** leaksNoText asserts that nothing in a decision mentions Redis or its errors. */
function leaksNoText(decision: Decision): void {
  expect(JSON.stringify(decision)).not.toMatch(/OOM|maxmemory|redis|ERR|WRONGTYPE|RKCORRUPT/i);
}

const FAILED: Record<FailurePolicy, Partial<Decision>> = {
  fallback: { allowed: true, failure: 'fallback' },
  open: { allowed: true, failure: 'open' },
  closed: { allowed: false, failure: 'closed', retryAfterMs: 1000 },
};

describeRedis('error replies from Redis', () => {
  describe('memory exhausted (maxmemory, noeviction)', () => {
    afterEach(() => {
      server.cli('CONFIG', 'SET', 'maxmemory', '0');
    });

    for (const onFailure of ['fallback', 'open', 'closed'] as const) {
      it(`decides a write by '${onFailure}' and still denies an exhausted key on Redis`, async () => {
        const limiter = limiterOn(onFailure, `rk:oom-${onFailure}:`);
        await limiter.consume('spent');
        await limiter.consume('spent');
        server.cli('CONFIG', 'SET', 'maxmemory', '1');
        const spent = await limiter.consume('spent');
        expect(spent).toMatchObject({ allowed: false, remaining: 0 });
        expect(spent.failure).toBeUndefined();
        const fresh = await limiter.consume('fresh');
        expect(fresh).toMatchObject(FAILED[onFailure]);
        leaksNoText(fresh);
        expect(failures).toHaveLength(1);
        expect(failures[0]).toMatchObject({ operation: 'consume', policy: 'fw-2-3600000', reason: 'reply' });
        expect(String(failures[0]?.error)).toMatch(/OOM/);
      });
    }
  });

  describe('foreign data under a limiter key', () => {
    it('decides a key holding a hash by policy and leaves other keys to Redis (WRONGTYPE)', async () => {
      const limiter = limiterOn('closed');
      await redis.hset(storageKey('rk:', 'fw-2-3600000', 'hash'), 'field', 'value');
      const bad = await limiter.consume('hash');
      expect(bad).toMatchObject(FAILED.closed);
      leaksNoText(bad);
      expect(String(failures[0]?.error)).toMatch(/WRONGTYPE/);
      expect(await limiter.consume('good')).toMatchObject({ allowed: true, remaining: 1 });
      expect((await limiter.consume('good')).failure).toBeUndefined();
      expect(failures).toHaveLength(1);
      await redis.del(storageKey('rk:', 'fw-2-3600000', 'hash'));
    });

    it('decides a key holding a hash by policy inside a batch, and the other calls of the batch by Redis', async () => {
      const store = new RedisStore({ client: redis, onFailure: 'closed', timeoutMs: 1000 });
      store.on('failure', (info) => failures.push(info));
      const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 3_600_000, store });
      const composite = new CompositeLimiter([limiter, new SlidingWindowLimiter({ limit: 3, windowMs: 60_000, store })]);
      const hash = storageKey('rk:', 'fw-2-3600000', 'batch-hash');
      await redis.hset(hash, 'field', 'value');
      const before = store.batching.calls;
      // The burst's first SOLO_BELOW - 1 calls go alone (the store was quiet): the first, then peeks;
      // the other four go as one batch, the hash among them.
      const first = limiter.consume('batch-first');
      const alone = Array.from({ length: SOLO_BELOW - 2 }, () => limiter.peek('batch-first'));
      const [bad, good, badComposite, goodComposite] = await Promise.all([
        limiter.consume('batch-hash'),
        limiter.consume('batch-good'),
        composite.consume('batch-hash'),
        composite.consume('batch-good-pair'),
      ]);
      await Promise.all([first, ...alone]);
      expect(store.batching.calls - before).toBe(4);
      expect(bad).toMatchObject(FAILED.closed);
      expect(badComposite).toMatchObject({ allowed: false, failure: 'closed' });
      leaksNoText(bad);
      for (const decision of [await first, good, goodComposite]) expect(decision).toMatchObject({ allowed: true, remaining: 1 });
      expect(goodComposite?.failure).toBeUndefined();
      expect(failures.map((f) => f.reason)).toEqual(['reply', 'reply']);
      expect(await redis.hget(hash, 'field')).toBe('value');
      await redis.del(hash);
    });

    it('decides a key holding a string it did not write by policy, and never overwrites it', async () => {
      const limiter = limiterOn('fallback');
      const key = storageKey('rk:', 'fw-2-3600000', 'abc');
      await redis.set(key, 'abc');
      expect(await limiter.consume('abc')).toMatchObject(FAILED.fallback);
      expect(String(failures[0]?.error)).toMatch(/RKCORRUPT/);
      expect(await redis.get(key)).toBe('abc');
      await redis.del(key);
    });

    it('decides a whole composite by policy when one member key is foreign', async () => {
      const store = new RedisStore({ client: redis, onFailure: 'closed', timeoutMs: 1000 });
      store.on('failure', (info) => failures.push(info));
      const composite = new CompositeLimiter([new FixedWindowLimiter({ limit: 5, windowMs: 60_000, store }), new SlidingWindowLimiter({ limit: 3, windowMs: 60_000, store })]);
      await redis.hset(storageKey('rk:', 'sw-3-60000', 'mixed'), 'field', 'value');
      const decision = await composite.consume('mixed');
      expect(decision).toMatchObject({ allowed: false, failure: 'closed' });
      expect(decision.parts?.map((p) => p.failure)).toEqual(['closed', 'closed']);
      expect(failures).toMatchObject([{ policy: 'fw-5-60000+sw-3-60000', reason: 'reply' }]);
      expect(await redis.exists(storageKey('rk:', 'fw-5-60000', 'mixed'))).toBe(0);
      await redis.del(storageKey('rk:', 'sw-3-60000', 'mixed'));
    });

    it('gives a state that lost its TTL a TTL again on its next admission that the state it holds does not say it covers', async () => {
      const limiter = limiterOn('closed');
      await limiter.consume('immortal');
      const key = storageKey('rk:', 'fw-2-3600000', 'immortal');
      // The expiry a decision recorded in the value (TTL-keep, test/ttl-keep.test.ts) is taken as the
      // key's: a key persisted by hand keeps no TTL until that has passed. Here it has.
      const value = (await redis.getBuffer(key)) as Buffer;
      value.writeDoubleLE(Date.now() - 60_000, value.length - 9);
      await redis.set(key, value);
      expect(await redis.pttl(key)).toBe(-1);
      expect(await limiter.consume('immortal')).toMatchObject({ allowed: true, remaining: 0 });
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    });
  });

  it('catches the naive mutant rejecting on WRONGTYPE', async () => {
    const naive = new FixedWindowLimiter({ limit: 2, windowMs: 3_600_000, store: new NaiveStore(redis, 'rk:naive:') });
    await redis.hset(storageKey('rk:naive:', 'fw-2-3600000', 'hash'), 'field', 'value');
    await expect(naive.consume('hash')).rejects.toThrow(/WRONGTYPE/);
    await redis.del(storageKey('rk:naive:', 'fw-2-3600000', 'hash'));
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(redis)).toEqual([]);
  });
});
