/**
 * The public surface: the exact export list, CommonJS and ESM loading on Node 20, and the contract
 * every core limiter sees on a RedisStore (async mode, peek records nothing, reset, TTL equal to the
 * time until empty, server time by default, client time on request, misuse caught at construction).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CompositeLimiter, FixedWindowLimiter, ManualClock, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { RedisStore, storageKey } from '../src/index.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { readState } from './support/state.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

describe('the package', () => {
  it('exports exactly its documented names', () => {
    expect(Object.keys(api).sort()).toEqual([
      'CLOSED_RETRY_AFTER_MS',
      'DEFAULT_LEASED_TTL_MS',
      'DEFAULT_LEASE_KEYS',
      'DEFAULT_PREFIX',
      'DEFAULT_PROBE_INTERVAL_MS',
      'DEFAULT_TIMEOUT_MS',
      'LeasedLimiter',
      'MAX_RAW_KEY_LENGTH',
      'RedisBinding',
      'RedisStore',
      'storageKey',
    ]);
  });

  it('loads with require() and with import on Node 20 (the built package)', () => {
    const probe = (code: string, type: string) => execFileSync(process.execPath, ['--input-type', type, '-e', code], { cwd: packageDir, encoding: 'utf8' }).trim();
    expect(probe("const { RedisStore } = require('@ratekeeper/redis'); console.log(typeof RedisStore)", 'commonjs')).toBe('function');
    expect(probe("import { RedisStore } from '@ratekeeper/redis'; console.log(typeof RedisStore)", 'module')).toBe('function');
  });
});

let server: RedisServer;
let redis: Redis;

describeRedis('limiters on a RedisStore', () => {
  beforeAll(async () => {
    server = await startServer();
    redis = ioredis(server.port);
  });

  afterAll(async () => {
    await closeAll();
    await server?.stop();
  });

  it('answers every call with a promise of the same figures the memory store gives', async () => {
    const store = new RedisStore({ client: redis });
    const limiter = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, store });
    expect(limiter.mode).toBe('async');
    const pending = limiter.consume('promise');
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toMatchObject({ allowed: true, limit: 2, remaining: 1, retryAfterMs: 0 });
    expect(await limiter.allow('promise')).toBe(true);
    expect(await limiter.peek('promise')).toMatchObject({ allowed: false, remaining: 0 });
    expect(await limiter.allow('promise')).toBe(false);
  });

  it('records nothing on peek and clears a key on reset', async () => {
    const store = new RedisStore({ client: redis });
    const limiter = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, store });
    expect(await limiter.peek('peek')).toMatchObject({ allowed: true, remaining: 2 });
    expect(await redis.exists(storageKey('rk:', 'fw-3-60000', 'peek'))).toBe(0);
    await limiter.consume('peek');
    await limiter.reset('peek');
    expect(await redis.exists(storageKey('rk:', 'fw-3-60000', 'peek'))).toBe(0);
    expect(await limiter.consume('peek')).toMatchObject({ remaining: 2 });
  });

  it("sets each key's TTL to the time until its state is empty, plus the margin TTL-keep uses", async () => {
    const clock = new ManualClock(1_700_000_000_500);
    const store = new RedisStore({ client: redis, time: 'client' });
    const limiter = new SlidingWindowLimiter({ limit: 5, windowMs: 10_000, store, clock });
    const decision = await limiter.consume('ttl');
    expect(decision.resetAfterMs).toBe(19_500);
    // At least that, and at most 20 % more (a key may outlive its state by max(0.9 s, 20 %): test/ttl-keep.test.ts).
    const pttl = await redis.pttl(storageKey('rk:', 'sw-5-10000', 'ttl'));
    expect(pttl).toBeLessThanOrEqual(19_500 + 3_900);
    expect(pttl).toBeGreaterThan(19_000 + 3_900);
  });

  it("reads Redis's TIME by default, whatever the limiter's clock says", async () => {
    const epoch = new ManualClock(0);
    const server = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, store: new RedisStore({ client: redis, prefix: 'srv:' }), clock: epoch });
    const client = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, store: new RedisStore({ client: redis, prefix: 'cli:', time: 'client' }), clock: epoch });
    await server.consume('time');
    await client.consume('time');
    const [seconds] = await redis.time();
    const [serverWindow] = (await readState(redis, storageKey('srv:', 'fw-5-60000', 'time'))) ?? [];
    expect(serverWindow).toBe(Math.floor((Number(seconds) * 1000) / 60_000) * 60_000);
    expect(await readState(redis, storageKey('cli:', 'fw-5-60000', 'time'))).toEqual([0, 1]);
  });

  it('refuses a policy name bound twice with other parameters', () => {
    const store = new RedisStore({ client: redis });
    new FixedWindowLimiter({ limit: 3, windowMs: 1000, store, name: 'login' });
    new FixedWindowLimiter({ limit: 3, windowMs: 1000, store, name: 'login' });
    expect(() => new FixedWindowLimiter({ limit: 4, windowMs: 1000, store, name: 'login' })).toThrow(
      'RedisStore: policy name "login" is already bound with other parameters; give each limit its own name',
    );
  });

  it('refuses a composite whose members share a policy name, at construction', () => {
    const one = new RedisStore({ client: redis });
    const two = new RedisStore({ client: redis });
    const twins = () =>
      new CompositeLimiter([
        new FixedWindowLimiter({ limit: 3, windowMs: 1000, store: one, name: 'twin' }),
        new FixedWindowLimiter({ limit: 3, windowMs: 1000, store: one, name: 'twin' }),
      ]);
    expect(twins).toThrow('RedisStore: composite members must have distinct policy names; "twin" appears twice');
    expect(
      () => new CompositeLimiter([new FixedWindowLimiter({ limit: 3, windowMs: 1000, store: one }), new FixedWindowLimiter({ limit: 2, windowMs: 1000, store: two })]),
    ).toThrow(TypeError);
  });

  it('refuses a composite of more than 16 members at construction, and takes 16', async () => {
    const store = new RedisStore({ client: redis });
    const members = Array.from({ length: 17 }, (_, i) => new FixedWindowLimiter({ limit: 100 + i, windowMs: 60_000, store }));
    expect(() => new CompositeLimiter(members)).toThrow(new TypeError('RedisStore: a composite may have at most 16 members, got 17'));
    const sixteen = new CompositeLimiter(members.slice(0, 16));
    expect((await sixteen.consume('sixteen')).failure).toBeUndefined();
  });

  it('never throws from consumeAll: bindings it refuses reject the promise instead', async () => {
    const store = new RedisStore({ client: redis });
    const bindings = Array.from({ length: 17 }, (_, i) => new FixedWindowLimiter({ limit: 200 + i, windowMs: 60_000, store }).binding);
    let outcome: Promise<unknown> | undefined;
    expect(() => {
      outcome = store.consumeAll(bindings, 'k', 0, 1, true);
    }).not.toThrow();
    await expect(outcome).rejects.toThrow('RedisStore: a composite may have at most 16 members, got 17');
  });

  it('decides a composite in one script call, and a denial costs no member anything', async () => {
    // A server of its own: the other stores of this file count their peers there (one beat every 5 s),
    // which would show in its command statistics.
    const quiet = await startServer();
    const store = new RedisStore({ client: ioredis(quiet.port), fallbackDivisor: 1 });
    const perSecond = new FixedWindowLimiter({ limit: 2, windowMs: 1_000_000, store });
    const perMinute = new SlidingWindowLimiter({ limit: 5, windowMs: 1_000_000, store });
    const composite = new CompositeLimiter([perSecond, perMinute]);
    quiet.cli('CONFIG', 'RESETSTAT');
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await composite.consume('both'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false, false]);
    expect(quiet.cli('INFO', 'commandstats')).toMatch(/cmdstat_evalsha:calls=4,/);
    expect((await perMinute.peek('both')).remaining).toBe(2);
    await quiet.stop();
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(redis)).toEqual([]);
  });
});
