/**
 * LeasedLimiter in one process, on a real redis-server started by the test: what its arguments accept,
 * what a decision from a lease costs (no round trip) and says (honest figures), a partial lease and the
 * store's own denial once the bucket is dry, expiry on an injected clock (units go back), close, the
 * bound on keys holding leases under a flood of fresh keys, reset and refund, a Redis that cannot
 * answer (the failure policy decides; nothing is admitted beyond a lease), and the lease script against
 * the token bucket's TypeScript step on random histories (a script with no partial lease is caught).
 * Every store runs in client time on a ManualClock unless the test says otherwise, and the tests that
 * take units end by reading the bucket's tokens in Redis: exactly what was not admitted.
 */
import {
  CompositeLimiter,
  type Decision,
  FixedWindowLimiter,
  GcraLimiter,
  ManualClock,
  MemoryStore,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
} from '@ratekeeper/core';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { takeLease } from '../src/lease/lease-calls.js';
import { type FailureInfo, LeasedLimiter, RedisBinding, RedisStore, type RedisStoreOptions } from '../src/index.js';
import { rewrittenScripts } from './mutants/rewritten-scripts-client.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';

const T0 = 1_700_000_000_000;
const figures = ({ allowed, remaining, retryAfterMs, resetAfterMs }: Decision) => ({ allowed, remaining, retryAfterMs, resetAfterMs });
const idle = new RedisStore({ client: { call: async () => null } });

describe('LeasedLimiter arguments', () => {
  const bucket = (o: object = {}) => new TokenBucketLimiter({ capacity: 100, refillPerSecond: 1, store: idle, ...o });

  it('takes a token bucket or a GcraLimiter on a RedisStore', () => {
    expect(new LeasedLimiter(bucket({ name: 'args-tb' }), { units: 10 })).toMatchObject({ mode: 'async', units: 10, ttlMs: 1000, maxKeys: 1000 });
    expect(new LeasedLimiter(new GcraLimiter({ emissionIntervalMs: 10, burst: 20, store: idle }), { units: 20, ttlMs: 250, maxKeys: 5 })).toMatchObject({
      units: 20,
      ttlMs: 250,
      maxKeys: 5,
    });
  });

  it('refuses every windowed limiter, naming the class, the option and the algorithm', () => {
    const want = "LeasedLimiter: limiter must be a TokenBucketLimiter or GcraLimiter on a RedisStore (units spent after their take fit only a token bucket's limit), got";
    const windows = [
      [new SlidingWindowLimiter({ limit: 10, windowMs: 1000, store: idle }), "a SlidingWindowLimiter (algorithm 'sliding-window')"],
      [new FixedWindowLimiter({ limit: 10, windowMs: 1000, store: idle }), "a FixedWindowLimiter (algorithm 'fixed-window')"],
      [new SlidingLogLimiter({ limit: 10, windowMs: 1000, store: idle }), "a SlidingLogLimiter (algorithm 'sliding-log')"],
    ] as const;
    for (const [limiter, got] of windows) expect(() => new LeasedLimiter(limiter, { units: 5 })).toThrow(new TypeError(`${want} ${got}`));
  });

  it('refuses a composite, a limiter on another store and what is not a limiter', () => {
    const want = 'LeasedLimiter: limiter must be a TokenBucketLimiter or GcraLimiter on a RedisStore, got';
    expect(() => new LeasedLimiter(new CompositeLimiter([bucket({ name: 'c1' })]), { units: 1 })).toThrow(new TypeError(`${want} a CompositeLimiter`));
    const memory = new TokenBucketLimiter({ capacity: 100, refillPerSecond: 1, store: new MemoryStore() }) as never;
    expect(() => new LeasedLimiter(memory, { units: 1 })).toThrow(new TypeError(`${want} a TokenBucketLimiter on a MemoryStore`));
    expect(() => new LeasedLimiter({} as never, { units: 1 })).toThrow(new TypeError(`${want} a Object`));
    expect(() => new LeasedLimiter(null as never, { units: 1 })).toThrow(new TypeError(`${want} null`));
  });

  it('refuses bad options, naming the option and the value', () => {
    const b = bucket({ name: 'args-o' });
    expect(() => new LeasedLimiter(b, undefined as never)).toThrow(new TypeError('LeasedLimiter: options must be an object with units, got undefined'));
    expect(() => new LeasedLimiter(b, {} as never)).toThrow(new TypeError("LeasedLimiter: units must be an integer from 1 to 100 (the bucket's capacity), got undefined"));
    expect(() => new LeasedLimiter(b, { units: 0 })).toThrow(new RangeError("LeasedLimiter: units must be an integer from 1 to 100 (the bucket's capacity), got 0"));
    expect(() => new LeasedLimiter(b, { units: 101 })).toThrow(new RangeError("LeasedLimiter: units must be an integer from 1 to 100 (the bucket's capacity), got 101"));
    expect(() => new LeasedLimiter(b, { units: 2.5 })).toThrow(RangeError);
    expect(() => new LeasedLimiter(b, { units: 5, ttlMs: 0 })).toThrow(new RangeError('LeasedLimiter: ttlMs must be an integer from 1 to 60000, got 0'));
    expect(() => new LeasedLimiter(b, { units: 5, maxKeys: '9' as never })).toThrow(new TypeError('LeasedLimiter: maxKeys must be an integer from 1 to 1000000, got "9"'));
    expect(() => new LeasedLimiter(b, { units: 5, unit: 1 } as never)).toThrow(new TypeError('LeasedLimiter: unknown option "unit"'));
  });

  it('refuses a bad key, cost or clock reading with a rejected promise, never a decision', async () => {
    let reading = T0;
    const l = new LeasedLimiter(bucket({ name: 'args-call', clock: { now: () => reading } }), { units: 5 });
    await expect(l.consume(1 as never)).rejects.toThrow(new TypeError('LeasedLimiter: key must be a string, got 1'));
    await expect(l.allow('k', 0)).rejects.toThrow(new RangeError('LeasedLimiter: cost must be a positive integer, got 0'));
    reading = Number.NaN;
    await expect(l.peek('k')).rejects.toThrow(new RangeError('LeasedLimiter: clock.now() must return a finite number of epoch milliseconds, got NaN'));
  });
});

let server: RedisServer;
let redis: Redis;
let names = 0;
const failures: FailureInfo[] = [];

/** commands: a client that counts what it sends (EVALSHA by script), on the shared connection. */
function counting(): { client: RedisStoreOptions['client']; sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    client: {
      call: (command: string, ...args: (string | number)[]) => {
        sent.push(command);
        return redis.call(command, ...args);
      },
    } as never,
  };
}

interface Setup {
  readonly clock: ManualClock;
  readonly store: RedisStore;
  readonly inner: TokenBucketLimiter<'async'>;
  readonly sent: string[];
  /** tokens reads the bucket's whole tokens in Redis (peek: remaining = tokens − 1 while one is left). */
  tokens(key: string): Promise<number>;
}

function setup(capacity = 100, store: Partial<RedisStoreOptions> = {}): Setup {
  const clock = new ManualClock(T0);
  const { client, sent } = counting();
  // A fixed fallback divisor: no peer count beats, so the commands counted are lease mode's own.
  const s = new RedisStore({ client, time: 'client', timeoutMs: 5000, fallbackDivisor: 1, ...store });
  s.on('failure', (info) => failures.push(info));
  const name = `lease-${names++}`;
  const inner = new TokenBucketLimiter({ capacity, refillPerSecond: 1e-6, store: s, clock, name });
  const reader = new TokenBucketLimiter({ capacity, refillPerSecond: 1e-6, store: new RedisStore({ client: redis, time: 'client', timeoutMs: 5000 }), clock, name });
  const tokens = async (key: string) => {
    const d = await reader.peek(key);
    return d.allowed ? d.remaining + 1 : 0;
  };
  return { clock, store: s, inner, sent, tokens };
}

describeRedis('lease mode on a real Redis', () => {
  beforeAll(async () => {
    server = await startServer();
    redis = ioredis(server.port);
  });

  afterEach(() => {
    vi.useRealTimers();
    expect(failures.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    expect(await immortalKeys(redis)).toEqual([]);
    await closeAll();
    await server?.stop();
  });

  it('serves decisions the lease covers with no round trip, one take per k/2 decisions on a hot key', async () => {
    const { inner, sent, store, tokens } = setup(1000);
    const l = new LeasedLimiter(inner, { units: 20 });
    expect(await l.consume('hot')).toMatchObject({ allowed: true });
    const before = sent.length;
    for (let i = 0; i < 8; i++) expect(await l.allow('hot')).toBe(true); // held 19 → 11
    expect(sent.length).toBe(before);
    for (let i = 0; i < 91; i++) expect(await l.allow('hot')).toBe(true);
    // A take of 20 at the start, then at most one each time the lease falls to half.
    expect(store.leasing.refills).toBeLessThanOrEqual(10);
    await l.close();
    expect(await tokens('hot')).toBe(1000 - 100);
  });

  it('answers many concurrent requests for one key with one take (single flight)', async () => {
    const { inner, sent, store, tokens } = setup();
    const l = new LeasedLimiter(inner, { units: 50 });
    const decisions = await Promise.all(Array.from({ length: 30 }, () => l.consume('burst')));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(store.leasing.refills).toBe(1);
    expect(sent.filter((c) => c.startsWith('EVAL')).length).toBeLessThanOrEqual(3); // EVALSHA, then EVAL after NOSCRIPT and a first deadline
    await l.close();
    expect(await tokens('burst')).toBe(70);
  });

  it("reports the bucket's remaining as Redis last saw it plus what the lease still holds", async () => {
    const { inner } = setup(100);
    const l = new LeasedLimiter(inner, { units: 10 });
    // The take leaves 90 in Redis and 10 here: 99 after the first request, 98 after the second.
    expect(await l.consume('figures')).toMatchObject({ allowed: true, limit: 100, remaining: 99, retryAfterMs: 0, resetAfterMs: 10e9 });
    expect(await l.consume('figures')).toMatchObject({ remaining: 98, resetAfterMs: 10e9 });
    expect(await l.peek('figures', 3)).toMatchObject({ allowed: true, remaining: 95 });
    await l.close();
  });

  it("takes a partial lease when fewer units remain, then denies through Redis with the store's own Retry-After", async () => {
    const { inner, clock, tokens } = setup(15);
    const l = new LeasedLimiter(inner, { units: 10 });
    for (let i = 0; i < 15; i++) expect((await l.consume('dry')).allowed, `request ${i}`).toBe(true);
    const denied = await l.consume('dry');
    clock.advance(0);
    expect(denied).toEqual(await inner.peek('dry'));
    expect(denied).toMatchObject({ allowed: false, remaining: 0 });
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    expect(await tokens('dry')).toBe(0);
    await l.close();
    expect(await tokens('dry')).toBe(0);
  });

  it('gives expired units back on the next request for the key (injected clock)', async () => {
    const { inner, clock, store, tokens } = setup(100);
    const l = new LeasedLimiter(inner, { units: 10, ttlMs: 1000 });
    await l.consume('expiry');
    clock.advance(999);
    await l.consume('expiry'); // 1 ms before expiry: still the first take's units
    expect([store.leasing.refills, store.leasing.returned]).toEqual([1, 0]);
    clock.advance(1);
    await l.consume('expiry'); // expired: 8 go back, a new take of 10
    expect([store.leasing.refills, store.leasing.returned, l.held('expiry')]).toEqual([2, 8, 9]);
    await l.close();
    expect(await tokens('expiry')).toBe(97);
  });

  it("gives an idle key's expired units back on its timer", async () => {
    const { inner, clock, store, tokens } = setup(100);
    const l = new LeasedLimiter(inner, { units: 10, ttlMs: 800 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await l.consume('idle');
    clock.advance(800);
    vi.advanceTimersByTime(800);
    vi.useRealTimers();
    expect(l.held('idle')).toBe(0);
    await l.close(); // waits for the return already sent
    expect(store.leasing.returned).toBe(9);
    expect(await tokens('idle')).toBe(99);
  });

  it('holds leases for at most maxKeys keys under a flood of fresh keys, giving back what it evicts', async () => {
    const { inner, store, tokens } = setup(100);
    const l = new LeasedLimiter(inner, { units: 10, maxKeys: 4 });
    let most = 0;
    for (let i = 0; i < 40; i++) {
      await l.consume(`flood-${i}`);
      most = Math.max(most, l.held());
    }
    expect(most).toBeLessThanOrEqual(4 * 10);
    expect(store.leasing.returned).toBe(36 * 9);
    await l.close();
    for (const i of [0, 17, 39]) expect(await tokens(`flood-${i}`)).toBe(99);
  });

  it('reset drops the lease and empties the key; refund goes to the shared bucket', async () => {
    const { inner, tokens } = setup(100);
    const l = new LeasedLimiter(inner, { units: 10 });
    await l.consume('reset', 3);
    expect(l.held('reset')).toBe(7);
    await l.reset('reset');
    expect([l.held('reset'), await tokens('reset')]).toEqual([0, 100]);
    await l.consume('reset', 4); // a fresh take of 10: 90 in Redis
    await l.refund('reset', 2);
    expect(await tokens('reset')).toBe(92);
    await l.close();
    expect(await tokens('reset')).toBe(98);
  });

  it('decides by the failure policy when Redis cannot answer a take, admitting nothing beyond a lease', async () => {
    const dead = await startServer();
    const client = ioredis(dead.port, { maxRetriesPerRequest: 0 });
    await client.ping();
    await dead.stop();
    for (const onFailure of ['closed', 'fallback'] as const) {
      const seen: FailureInfo[] = [];
      const store = new RedisStore({ client, onFailure });
      store.on('failure', (info) => seen.push(info));
      const inner = new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1e-6, store, name: `dead-${onFailure}` });
      const l = new LeasedLimiter(inner, { units: 3 });
      const decisions = await Promise.all(Array.from({ length: 5 }, () => l.consume('k')));
      expect(decisions.map((d) => d.failure)).toEqual(Array(5).fill(onFailure));
      expect(decisions.filter((d) => d.allowed).length).toBe(onFailure === 'closed' ? 0 : 3);
      expect(seen[0]?.operation).toBe('lease');
      expect(l.held()).toBe(0);
      await l.close();
    }
  });
  it('takes min(k, whole tokens) exactly as consumes at the same instant would, on random histories', async () => {
    await fc.assert(leaseMatchesStep(redis), { numRuns: 40 });
  });

  it('catches a lease script that takes no partial lease (the all-or-nothing mutant)', async () => {
    const result = await fc.check(leaseMatchesStep(rewrittenScripts(redis as never, ALL_OR_NOTHING) as never), { numRuns: 40 });
    expect(result.failed).toBe(true);
  });
});

/** MUTANT: a take of more than the bucket holds takes nothing, instead of every whole token there. */
const ALL_OR_NOTHING = (source: string) => source.replace('if not ok and remaining >= 1 then', 'if false then');

/**
 * leaseMatchesStep: random histories of consumes and takes on one key, on Redis through `client` in
 * client time and on the memory store, where a take of n is consume(n), else consume(whole tokens
 * there) when at least one is: the same grant, remaining and reset, and every consume decided alike.
 */
function leaseMatchesStep(client: RedisStoreOptions['client']) {
  const step = fc.record({ dt: fc.constantFrom(0, 0, 1, 13, 250, 1000, 4000), take: fc.boolean(), n: fc.integer({ min: 1, max: 7 }) });
  return fc.asyncProperty(fc.array(step, { maxLength: 30 }), fc.constantFrom(0, 1, 333), async (history, offset) => {
    const clock = new ManualClock(T0 + offset);
    const name = `diff-${names++}`;
    // The deny cache off: it answers a cached denial's remaining as Redis last gave it.
    const store = new RedisStore({ client, time: 'client', timeoutMs: 5000, denyCache: false });
    const remote = new TokenBucketLimiter({ capacity: 7, refillPerSecond: 3, store, clock, name });
    const memory = new TokenBucketLimiter({ capacity: 7, refillPerSecond: 3, clock, name });
    for (const [i, s] of history.entries()) {
      clock.advance(s.dt);
      if (!s.take) {
        expect(figures(await remote.consume('k', s.n)), `step ${i}`).toEqual(figures(memory.consume('k', s.n)));
        continue;
      }
      const take = await takeLease(remote.binding as RedisBinding, 'k', s.n, clock.now());
      const whole = memory.consume('k', s.n);
      const partial = whole.allowed || whole.remaining < 1 ? undefined : memory.consume('k', whole.remaining);
      const granted = whole.allowed ? s.n : partial === undefined ? 0 : whole.remaining;
      expect(take?.granted, `step ${i}: take ${s.n}`).toBe(granted);
      expect(take?.remaining, `step ${i}: remaining`).toBe((partial ?? whole).remaining);
      if (granted > 0) expect(take?.resetAfterMs, `step ${i}: reset`).toBe((partial ?? whole).resetAfterMs);
    }
  });
}
