/**
 * Bans on Redis (a real redis-server started by the test): the login table of core's ban tests
 * ("5 attempts per 15 minutes, then an hour's ban") gives the memory store's exact decisions; every
 * decision, banned or not, is one EVALSHA (INFO commandstats); the ban is a key in the state's hash
 * tag whose TTL is the time left; reset lifts it.
 */
import { BanLimiter, type Decision, FixedWindowLimiter, ManualClock, SlidingWindowLimiter, TokenBucketLimiter, type RateLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore, storageKey } from '../src/index.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % (15 * MIN));
const AT = [0, 1_000, 2_000, 3_000, 4_000, 5_000, 10 * MIN, 16 * MIN, HOUR + 4_999, HOUR + 5_000, HOUR + 6_000];

let server: RedisServer;
let redis: Redis;
const failures: unknown[] = [];

beforeAll(async () => {
  server = await startServer();
  redis = ioredis(server.port);
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

const store = (prefix: string) => {
  // A fixed fallback divisor: no peer count beats, so the EVALSHA calls counted are the bans' own.
  const s = new RedisStore({ client: redis, time: 'client', timeoutMs: 5_000, prefix, fallbackDivisor: 1 });
  s.on('failure', (info: unknown) => void failures.push(info));
  return s;
};

const evalshaCalls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);

type Make = (o: { clock: ManualClock; store?: RedisStore }) => RateLimiter;
const INNER: readonly [string, Make][] = [
  ['fixed-window', (o) => new FixedWindowLimiter({ limit: 5, windowMs: 15 * MIN, name: 'login', ...o }) as RateLimiter],
  ['sliding-window', (o) => new SlidingWindowLimiter({ limit: 5, windowMs: 15 * MIN, name: 'login', ...o }) as RateLimiter],
  ['token-bucket', (o) => new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1 / 180, name: 'login', ...o }) as RateLimiter],
];

describeRedis('bans on Redis', () => {
  for (const [name, make] of INNER) {
    it(`${name}: decides the login table as the memory store does, one EVALSHA per decision`, async () => {
      const clock = new ManualClock(T0);
      const memory = new BanLimiter({ limiter: make({ clock }) as never, banMs: HOUR });
      const remote = new BanLimiter({ limiter: make({ clock, store: store(`${name}:`) }) as never, banMs: HOUR });
      await remote.peek('warm-up');
      const before = await evalshaCalls();
      const got: [Decision, Decision][] = [];
      for (const at of AT) {
        clock.set(T0 + at);
        got.push([memory.consume('alice') as Decision, await remote.consume('alice')]);
      }
      expect((await evalshaCalls()) - before).toBe(AT.length);
      for (const [i, [want, have]] of got.entries()) expect(have, `step ${i} at +${AT[i]}`).toEqual(want);
      expect(got.map(([d]) => d.allowed)).toContain(false);
      expect(failures).toEqual([]);
    });
  }

  it('keeps the ban in the state’s hash tag with the time left as its TTL, and reset lifts it', async () => {
    const clock = new ManualClock(T0);
    const limiter = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 1, windowMs: MIN, name: 'p', clock, store: store('t:') }), banMs: 30_000 });
    await limiter.consume('k');
    expect((await limiter.consume('k')).retryAfterMs).toBe(30_000);
    const ttl = await redis.pttl(`${storageKey('t:', 'p', 'k')}:ban`);
    expect(ttl).toBeGreaterThan(29_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    await limiter.reset('k');
    expect((await limiter.consume('k')).allowed).toBe(true);
    expect(failures).toEqual([]);
  });
});
