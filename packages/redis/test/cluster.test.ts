/**
 * Redis Cluster: a local 3-node cluster started by the test. Composites of three policies and single
 * sliding-window limiters decide random keys (braces, empty strings, long keys, any Unicode and lone
 * surrogates included) through ioredis's Cluster and node-redis's cluster: every decision comes from
 * Redis, with no failure of any kind, CROSSSLOT included, because every key of one request shares a
 * hash tag. A client that strips the tags (the mutant) must be refused by the cluster.
 */
import { CompositeLimiter, type Decision, FixedWindowLimiter, SlidingWindowLimiter, TokenBucketLimiter, reserve } from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FailureInfo, RedisStore } from '../src/index.js';
import { untaggedKeys } from './mutants/untagged-keys-client.js';
import { closeAll, ioredis, ioredisCluster, nodeRedisCluster } from './support/clients.js';
import { type RedisServer, startCluster } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';

const CALLS = 400;
let nodes: RedisServer[] = [];

beforeAll(async () => {
  nodes = await startCluster(3);
}, 60_000);

afterAll(async () => {
  await closeAll();
  await Promise.all(nodes.map((n) => n.stop()));
});

/** Any UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const keys = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: codeUnit, maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('{', '}', 'a', 'b', ':', '#'), maxLength: 12 }),
  fc.string({ minLength: 250, maxLength: 400 }),
  fc.uuid(),
);

function limitersOn(store: RedisStore) {
  const composite = new CompositeLimiter([
    new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, store }),
    new SlidingWindowLimiter({ limit: 5, windowMs: 10_000, store }),
    new FixedWindowLimiter({ limit: 7, windowMs: 10_000, store }),
  ]);
  const sliding = new SlidingWindowLimiter({ limit: 3, windowMs: 10_000, store });
  return { composite, sliding };
}

async function decideRandomKeys(store: RedisStore): Promise<{ decisions: Decision[]; failures: FailureInfo[] }> {
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const { composite, sliding } = limitersOn(store);
  const sample = fc.sample(keys, { numRuns: CALLS, seed: 7 });
  const decisions: Decision[] = [];
  for (let i = 0; i < sample.length; i += 50) {
    const wave = sample.slice(i, i + 50);
    decisions.push(...(await Promise.all(wave.flatMap((key) => [composite.consume(key), sliding.consume(key)]))));
  }
  return { decisions, failures };
}

describeRedis('a 3-node Redis Cluster', () => {
  it('decides composites and sliding windows on random keys through ioredis Cluster, no CROSSSLOT', async () => {
    const cluster = ioredisCluster(nodes.map((n) => n.port));
    const { decisions, failures } = await decideRandomKeys(new RedisStore({ client: cluster, timeoutMs: 2000 }));
    expect(failures).toEqual([]);
    expect(decisions).toHaveLength(2 * CALLS);
    expect(decisions.filter((d) => d.failure !== undefined)).toEqual([]);
  });

  it('decides composites and sliding windows on random keys through the node-redis cluster, no CROSSSLOT', async () => {
    const cluster = await nodeRedisCluster(nodes.map((n) => n.port));
    const { decisions, failures } = await decideRandomKeys(new RedisStore({ client: cluster, timeoutMs: 2000, prefix: 'nr:' }));
    expect(failures).toEqual([]);
    expect(decisions.filter((d) => d.failure !== undefined)).toEqual([]);
  });

  it('catches the mutant whose keys share no hash tag (CROSSSLOT)', async () => {
    const cluster = ioredisCluster(nodes.map((n) => n.port));
    const store = new RedisStore({ client: untaggedKeys(cluster), timeoutMs: 2000, prefix: 'mut:' });
    const { failures } = await decideRandomKeys(store);
    expect(failures.some((f) => /CROSSSLOT/.test(String(f.error)))).toBe(true);
  });

  it('books and cancels reservations on random keys, composites included, no CROSSSLOT (booking keys share the tag)', async () => {
    const store = new RedisStore({ client: ioredisCluster(nodes.map((n) => n.port)), timeoutMs: 2000, prefix: 'res:' });
    const failures: FailureInfo[] = [];
    store.on('failure', (info) => failures.push(info));
    const { composite, sliding } = limitersOn(store);
    const sample = fc.sample(keys, { numRuns: 100, seed: 11 });
    for (const key of sample) {
      const booked = await Promise.all([composite, sliding].flatMap((l) => [reserve(l, key, 3), reserve(l, key, 3)]));
      expect(booked.every((r) => r.ok)).toBe(true);
      // The last booking of each limiter is the latest on its keys: its cancel must succeed.
      expect(await Promise.all([booked[1], booked[3]].map((r) => r?.cancel()))).toEqual([booked[1]?.delayMs !== 0, booked[3]?.delayMs !== 0]);
    }
    expect(failures).toEqual([]);
  });

  it('leaves no key without a TTL on any node', async () => {
    for (const node of nodes) expect(await immortalKeys(ioredis(node.port))).toEqual([]);
  });
});
