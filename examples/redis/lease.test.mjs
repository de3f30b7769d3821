/**
 * Lease mode through the Express adapter over real HTTP: `rateLimit({ limiter: new LeasedLimiter(…) })`
 * on a RedisStore, against a redis-server started here on a free loopback port. The clock is injected
 * (a ManualClock, the store on client time) and never moves, so no token refills: the bucket is used up
 * by exactly its capacity of 200s, the next answer is a 429 whose Retry-After and RateLimit header are
 * the store's own (a plain limiter on the same bucket, peeked, says the same), and `close()` on shutdown
 * gives every held unit back: the bucket read back from Redis holds exactly capacity − admitted.
 * The lease mutants of @ratekeeper/redis's own harness run through the same requests and must be caught:
 * a client that spends one unit beyond each take admits more than the capacity, and one whose returns
 * are never sent leaves the bucket short after close(). Skipped without redis-server, except in CI.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/express';
import { LeasedLimiter, RedisStore } from '@ratekeeper/redis';
import express from 'express';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { forgetfulLeaseClient, overspendingLeaseClient } from '../../packages/redis/test/mutants/lease-clients.mjs';
import { startRedis, stop } from './processes.mjs';

const hasRedis = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const REFILL = 1 / 6; // one token every 6 s: a denial's wait is 6 s

describe.runIf(hasRedis || process.env.CI === 'true')('lease mode through Express on Redis', () => {
  let redis;
  let client;
  let apps = 0;
  let server;
  const failures = [];

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.port, '127.0.0.1');
  });

  afterEach(() => server && new Promise((done) => server.close(done)).then(() => (server = undefined)));

  afterAll(async () => {
    expect(failures).toEqual([]);
    client?.disconnect();
    if (redis) await stop(redis.child);
  });

  /** open serves one leased bucket of `capacity` (k = `units`) for every request, keyed 'caller', its store on `wrap(client)`. */
  async function open(capacity, units, wrap = (c) => c) {
    const clock = new ManualClock(T0);
    const store = new RedisStore({ client: wrap(client), time: 'client', timeoutMs: 2_000, prefix: `lease${apps++}:` });
    store.on('failure', (info) => failures.push(info));
    const policy = { capacity, refillPerSecond: REFILL, clock, name: 'api' };
    const limiter = new LeasedLimiter(new TokenBucketLimiter({ ...policy, store }), { units });
    const app = express();
    app.use(rateLimit({ limiter, key: () => 'caller' }));
    app.get('/', (req, res) => res.json({ ok: true }));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${server.address().port}/`;
    const get = async () => {
      const res = await fetch(url);
      await res.arrayBuffer();
      return { status: res.status, ratelimit: res.headers.get('ratelimit'), policy: res.headers.get('ratelimit-policy'), retryAfter: res.headers.get('retry-after') };
    };
    // The bucket as Redis holds it, read by a plain limiter on its own store (no lease, no deny cache).
    const reader = new TokenBucketLimiter({ ...policy, store: new RedisStore({ client, time: 'client', timeoutMs: 2_000, prefix: store.prefix, denyCache: false }) });
    const tokens = async () => {
      const d = await reader.peek('caller');
      return d.allowed ? d.remaining + 1 : 0;
    };
    return { limiter, get, reader, tokens };
  }

  it('admits exactly the capacity, then answers 429 with the store’s own Retry-After', async () => {
    const { limiter, get, reader } = await open(10, 3);
    const answers = [];
    for (let i = 0; i < 14; i++) answers.push(await get());
    expect(answers.map((a) => a.status)).toEqual([...Array(10).fill(200), ...Array(4).fill(429)]);
    for (const a of answers) {
      expect(a.policy).toBe('"api";q=10;w=60');
      expect(a.ratelimit).toMatch(/^"api";r=\d+;t=\d+$/);
    }
    expect(answers.slice(0, 10).map((a) => a.retryAfter)).toEqual(Array(10).fill(null));
    // What the store itself says of the bucket now: empty, the next token in 6 s.
    const store = await reader.peek('caller');
    expect([store.allowed, store.remaining, store.retryAfterMs]).toEqual([false, 0, 6_000]);
    for (const denied of answers.slice(10)) {
      expect(denied.retryAfter).toBe(String(Math.ceil(store.retryAfterMs / 1000)));
      expect(denied.ratelimit).toBe('"api";r=0;t=6');
    }
    expect(limiter.held('caller')).toBe(0);
  });

  it('catches a lease that spends one unit beyond each take (mutant): more than the capacity admitted', async () => {
    const { get } = await open(10, 3, overspendingLeaseClient);
    let admitted = 0;
    for (let i = 0; i < 14; i++) if ((await get()).status === 200) admitted++;
    expect(admitted).toBeGreaterThan(10);
  });

  it('gives the held units back on close(): Redis holds exactly capacity − admitted', async () => {
    const { limiter, get, tokens } = await open(50, 8);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await get()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(limiter.held('caller')).toBeGreaterThan(0); // units are out of the bucket, held here
    expect(await tokens()).toBe(50 - 5 - limiter.held('caller'));
    await new Promise((done) => server.close(done)); // shutdown: stop taking requests, then give back
    server = undefined;
    await limiter.close();
    expect(limiter.held()).toBe(0);
    expect(await tokens()).toBe(50 - 5);
  });

  it('catches a close() whose returns are never sent (mutant): the bucket is short of capacity − admitted', async () => {
    const { limiter, get, tokens } = await open(50, 8, forgetfulLeaseClient);
    for (let i = 0; i < 5; i++) expect((await get()).status).toBe(200);
    const held = limiter.held('caller');
    expect(held).toBeGreaterThan(0);
    await limiter.close();
    expect(await tokens()).toBe(50 - 5 - held);
  });
});
