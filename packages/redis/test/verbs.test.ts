/**
 * rate-limiter-flexible's verbs on Redis against the memory store: random histories of consumes,
 * charges (past the limit too), usage reads and blocks at random instants, on a real redis-server
 * started by the test, in client time, must give the memory store's exact Decisions and Usages, field
 * for field: the Lua ports of core's charge and usage steps (src/lua/verbs.ts) agree with the steps.
 * Two rewritten ports (mutants/rewritten-scripts-client.ts) must fail the same comparison. Then a
 * block set through one connection is seen through another, with its exact time left.
 */
import fc from 'fast-check';
import { BanLimiter, FixedWindowLimiter, ManualClock, type RateLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { CAPPED_CHARGE, FLOORED_USAGE, rewrittenScripts } from './mutants/rewritten-scripts-client.js';
import { closeAll, ioredis } from './support/clients.js';
import { nextInstant, type Spec } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const T0 = 1_700_000_000_000;
const LIMIT = 4;
type Make = (o: { store?: RedisStore; clock: ManualClock; name: string }) => RateLimiter;
const FIXED: readonly Spec[] = [{ algorithm: 'fixed-window', limit: LIMIT, windowMs: 2_000 }];
const ALGORITHMS: readonly [string, Make][] = [
  ['token-bucket', (o) => new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 3, ...o }) as RateLimiter],
  ['sliding-window', (o) => new SlidingWindowLimiter({ limit: LIMIT, windowMs: 2_000, ...o }) as RateLimiter],
  ['fixed-window', (o) => new FixedWindowLimiter({ limit: LIMIT, windowMs: 2_000, ...o }) as RateLimiter],
  ['sliding-log', (o) => new SlidingLogLimiter({ limit: LIMIT, windowMs: 2_000, ...o }) as RateLimiter],
];

let server: RedisServer;
let clients: Redis[];
let runs = 0;
const failures: unknown[] = [];

beforeAll(async () => {
  server = await startServer();
  clients = [ioredis(server.port), ioredis(server.port)];
});

afterEach(() => {
  expect(failures.splice(0)).toEqual([]);
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

const store = (i = 0, rewrite?: (source: string) => string) => {
  const client = rewrite === undefined ? clients[i]! : (rewrittenScripts(clients[i]!, rewrite) as Redis);
  const s = new RedisStore({ client, time: 'client', timeoutMs: 5_000, denyCache: false });
  s.on('failure', (info: unknown) => void failures.push(info));
  return s;
};

type Verb = 'consume' | 'charge' | 'usage' | 'block';
const ban = (limiter: RateLimiter) => new BanLimiter({ limiter: limiter as never, banMs: 1_500 }) as unknown as BanLimiter<'async'>;

/** sameAsMemory: random histories of the verbs on `algorithm`, Redis (its scripts passed through `rewrite`) against the memory store. */
function sameAsMemory(algorithm: string, make: Make, rewrite?: (source: string) => string, numRuns = 40): Promise<void> {
  const op = fc.record({
    verb: fc.constantFrom<Verb>('consume', 'consume', 'charge', 'usage', 'block'),
    cost: fc.integer({ min: 1, max: LIMIT + 3 }),
    wait: fc.constantFrom(0, 0, 1, 300, 999, 2_500, 5_000),
  });
  return fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
      const clock = new ManualClock(T0);
      const name = `v${runs++}`;
      const memory = ban(make({ clock, name })) as unknown as BanLimiter<'sync'>;
      const redis = ban(make({ store: store(0, rewrite), clock, name }));
      for (const [i, o] of ops.entries()) {
        clock.set(nextInstant(clock.now(), o.wait, algorithm === 'fixed-window' ? FIXED : []));
        const what = `step ${i} (${o.verb} ${o.cost} at ${clock.now()})`;
        if (o.verb === 'consume') expect(await redis.consume('k', o.cost), what).toEqual(memory.consume('k', o.cost));
        else if (o.verb === 'charge') expect(await redis.charge('k', o.cost), what).toEqual(memory.charge('k', o.cost));
        else if (o.verb === 'usage') expect(await redis.usage('k'), what).toEqual(memory.usage('k'));
        else await Promise.all([redis.block('k', 100 * o.cost), memory.block('k', 100 * o.cost)]);
      }
      expect(await redis.usage('k')).toEqual(memory.usage('k'));
    }),
    { numRuns },
  );
}

const makeOf = (algorithm: string) => (ALGORITHMS.find(([a]) => a === algorithm) as [string, Make])[1];

describeRedis('rate-limiter-flexible verbs on Redis', () => {
  for (const [algorithm, make] of ALGORITHMS) {
    it(`${algorithm}: consumes, charges, usage reads and blocks answer as the memory store does`, () => sameAsMemory(algorithm, make));
  }

  it('catches a charge capped at the limit and a usage rounded down (rewritten ports)', async () => {
    await expect(sameAsMemory('fixed-window', makeOf('fixed-window'), CAPPED_CHARGE, 100)).rejects.toThrow(/Property failed/);
    await expect(sameAsMemory('sliding-window', makeOf('sliding-window'), FLOORED_USAGE, 100)).rejects.toThrow(/Property failed/);
  });

  it('a block through one connection is seen through another, with its exact time left', async () => {
    const clock = new ManualClock(T0);
    const name = `shared${runs++}`;
    const one = ban(new FixedWindowLimiter({ limit: LIMIT, windowMs: 60_000, store: store(0), clock, name }) as RateLimiter);
    const two = ban(new FixedWindowLimiter({ limit: LIMIT, windowMs: 60_000, store: store(1), clock, name }) as RateLimiter);
    await one.block('k', 30_000);
    clock.advance(10_000);
    expect(await two.consume('k')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 20_000 });
    expect(await two.usage('k')).toMatchObject({ used: 0, blockedMs: 20_000 });
    clock.advance(20_000);
    expect((await two.consume('k')).allowed).toBe(true);
  });
});
