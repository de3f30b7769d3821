/**
 * A batch reads each key once and writes it once (lua/batch-script.ts): the calls on one key decide
 * in order on what the calls before them left, kept inside the script, and the key's last state goes
 * out with one SET … PX at the end. The hot key an attack brings then costs Redis one GET and one SET
 * per batch instead of one of each per call. Counted with INFO commandstats (commands a script runs
 * are counted there too) on a redis-server of the test's own, with the store's default options; the
 * decisions are the memory store's, call for call, and the key's TTL is its last state's.
 *
 * And a burst on a hot key from one process: the calls held while a denial of the key comes back are
 * answered by the deny cache as their batch goes (src/transport/batcher.ts, "Denials learnt while
 * waiting"), so Redis decides the calls on the wire before the first denial, not all 2,000; exactly
 * the limit is admitted, the first in call order. The mutant that sends held calls unchecked
 * (held-calls-unchecked) has Redis decide every call.
 */
import { CompositeLimiter, type Decision, FixedWindowLimiter, ManualClock, MemoryStore, TokenBucketLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore, storageKey } from '../src/index.js';
import { SOLO_BELOW } from '../src/transport/batcher.js';
import { closeAll, ioredis } from './support/clients.js';
import { mutantBuild } from './support/mutant-builds.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startServer();
  redis = ioredis(server.port);
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

/** calls reads how many times Redis has run each command so far. */
async function calls(): Promise<Record<string, number>> {
  const stats = await redis.info('commandstats');
  return Object.fromEntries([...stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((m) => [m[1] as string, Number(m[2])]));
}

/**
 * warm loads the single, composite and batch scripts into Redis through a store of its own, so that
 * the store under test, fresh, sends its first burst as one batch (its cap is maxSize until its first
 * answer) and no call of it is sent again after a NOSCRIPT (which would put it behind the batch).
 */
async function warm(): Promise<void> {
  const clock = new ManualClock(1_700_000_000_000);
  const store = new RedisStore({ client: redis, time: 'client', prefix: 'warm:' });
  const one = new TokenBucketLimiter({ store, clock, capacity: 5, refillPerSecond: 1, name: 'second' });
  const both = new CompositeLimiter([one, new FixedWindowLimiter({ store, clock, limit: 8, windowMs: 60_000, name: 'minute' })]);
  await both.consume('w');
  await Promise.all([one.consume('w'), one.consume('w'), both.consume('w'), both.consume('w')]);
}

/** ALONE: the calls of a burst that go alone before batching starts (the store was quiet: src/transport/batcher.ts). */
const ALONE = SOLO_BELOW - 1;

const figures = (d: Decision) => [d.allowed, d.remaining, d.retryAfterMs, d.resetAfterMs];

describeRedis('a batch on a hot key', () => {
  it('reads the key once and writes it once, whatever the number of calls on it', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const store = new RedisStore({ client: redis, time: 'client', prefix: 'hot1:' });
    const limiter = new TokenBucketLimiter({ store, clock, capacity: 40, refillPerSecond: 1, name: 'hot' });
    const memory = new TokenBucketLimiter({ store: new MemoryStore(), clock, capacity: 40, refillPerSecond: 1, name: 'hot' });
    await warm();
    const before = await calls();
    // The burst's first ALONE calls go alone (the store was quiet); the other 49 wait in one queue: one batch.
    const decided = await Promise.all(Array.from({ length: 64 }, () => limiter.consume('attacker')));
    const after = await calls();
    expect(decided.map(figures)).toEqual(Array.from({ length: 64 }, () => figures(memory.consume('attacker'))));
    expect(decided.filter((d) => d.allowed).length).toBe(40);
    expect({ get: (after['get'] ?? 0) - (before['get'] ?? 0), set: (after['set'] ?? 0) - (before['set'] ?? 0) }).toEqual({ get: ALONE + 1, set: ALONE + 1 });
    // The TTL covers the last admission's state (full again in 40 s: 40 tokens at 1 a second) and
    // outlives it by at most 20 % of a TTL it was written with (test/ttl-keep.test.ts).
    const ttl = await redis.pttl(storageKey('hot1:', 'hot', 'attacker'));
    expect(ttl).toBeGreaterThan(39_000);
    expect(ttl).toBeLessThanOrEqual(40_000 + 8_000);
  });

  it('reads and writes the key once per batch on default options too (server time, the deny cache on)', async () => {
    const store = new RedisStore({ client: redis, prefix: 'hot0:' });
    const limiter = new TokenBucketLimiter({ store, capacity: 40, refillPerSecond: 1, name: 'hot' });
    await limiter.consume('warm');
    const before = await calls();
    const decided = await Promise.all(Array.from({ length: 64 }, () => limiter.consume('attacker')));
    const after = await calls();
    expect(decided.filter((d) => d.failure !== undefined)).toEqual([]);
    expect(decided.filter((d) => d.allowed).length).toBe(40);
    expect({ get: (after['get'] ?? 0) - (before['get'] ?? 0), set: (after['set'] ?? 0) - (before['set'] ?? 0) }).toEqual({ get: ALONE + 1, set: ALONE + 1 });
  });

  it('keeps each key to one read and one write beside other keys and composites in the batch', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const store = new RedisStore({ client: redis, time: 'client', prefix: 'hot2:' });
    const make = (on: RedisStore | MemoryStore) => {
      const second = new TokenBucketLimiter({ store: on, clock, capacity: 5, refillPerSecond: 1, name: 'second' });
      const minute = new FixedWindowLimiter({ store: on, clock, limit: 8, windowMs: 60_000, name: 'minute' });
      return { second, both: new CompositeLimiter([second, minute]) };
    };
    const redisSide = make(store);
    const memorySide = make(new MemoryStore());
    await warm();
    const before = await calls();
    // The burst's first ALONE calls (on keys of their own) go alone; then one batch: the hot key alone,
    // through the composite, and 6 other keys.
    const fillers = Array.from({ length: ALONE }, (_, i) => `filler-${i}`);
    const keys = ['hot', 'hot', 'a', 'hot', 'b', 'hot', 'c', 'hot', 'hot', 'd', 'e', 'hot', 'f', 'hot', 'hot', 'hot'];
    const pick = (side: typeof redisSide, i: number) => (i % 3 === 0 ? side.both : side.second);
    const decided = await Promise.all([...fillers.map((key) => redisSide.second.consume(key)), ...keys.map((key, i) => pick(redisSide, i).consume(key))]);
    const after = await calls();
    const want = [...fillers.map((key) => memorySide.second.consume(key) as Decision), ...keys.map((key, i) => pick(memorySide, i).consume(key) as Decision)];
    expect(decided.map(figures)).toEqual(want.map(figures));
    // Keys the batch reads: 'hot' and 'a' to 'f' of the token bucket, and of the fixed window the
    // composite's keys (its calls at i = 0, 3, 6, 9, 12, 15 are on 'hot', 'hot', 'c', 'd', 'f', 'hot'):
    // 11 in all, once each; each filler reads and writes its own.
    const composite = new Set(keys.filter((_, i) => i % 3 === 0));
    const distinct = new Set(keys).size + composite.size;
    expect((after['get'] ?? 0) - (before['get'] ?? 0)).toBe(ALONE + distinct);
    expect((after['set'] ?? 0) - (before['set'] ?? 0)).toBe(ALONE + distinct); // every key admits at least once
  });

  /** burst fires 2,000 consumes at once on one key (capacity 500) and answers how Redis and the cache shared them. */
  async function burst(Store: typeof RedisStore, prefix: string) {
    const store = new Store({ client: redis, prefix, fallbackDivisor: 1 });
    const limiter = new TokenBucketLimiter({ capacity: 500, refillPerSecond: 1e-6, store, name: 'burst' });
    await limiter.consume('warm');
    const decisions = await Promise.all(Array.from({ length: 2000 }, () => limiter.consume('attacker')));
    return {
      admitted: decisions.filter((d) => d.allowed).length,
      firstDenied: decisions.findIndex((d) => !d.allowed),
      failed: decisions.filter((d) => d.failure !== undefined).length,
      byRedis: 2000 - store.denyCacheHits,
      byCache: store.denyCacheHits,
    };
  }

  it('answers the calls held behind a denial from the deny cache: Redis decides at most 820 of the 2,000', async () => {
    const seen = await burst(RedisStore, 'hot3:');
    expect(seen).toMatchObject({ admitted: 500, firstDenied: 500, failed: 0 });
    expect(seen.byRedis + seen.byCache).toBe(2000);
    // 500 admissions, then the batches already on the wire (at most 4 × 64) and the one being answered.
    expect(seen.byRedis).toBeLessThanOrEqual(500 + 5 * 64);
  });

  it('catches held calls sent to Redis unchecked (mutant held-calls-unchecked)', async () => {
    const { RedisStore: Mutant } = (await import(mutantBuild('held-calls-unchecked'))) as { RedisStore: typeof RedisStore };
    const seen = await burst(Mutant, 'hot4:');
    expect(seen).toMatchObject({ admitted: 500, firstDenied: 500, failed: 0 });
    expect(seen.byRedis).toBe(2000);
  });
});
