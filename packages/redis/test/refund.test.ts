/**
 * refund on Redis: one atomic script per algorithm (the Lua port of the step's refund), so that
 * concurrent consumes and refunds on one key never race into over-admission. A real redis-server,
 * started by the test. (1) Differential: random histories of consumes and refunds at random instants
 * give the memory store's exact decisions. (2) Concurrency: many consumes, each refunding part of what
 * it was charged as soon as it is admitted, fired at once through two connections: remaining is
 * exactly limit − (admitted − refunded), never more. (3) A refund beyond what was spent stops at a
 * full key; a composite gives every member its part back. A refund done as GET, step, SET from the
 * client (mutant) fails the concurrency property.
 */
import fc from 'fast-check';
import { CompositeLimiter, FixedWindowLimiter, ManualClock, type RateLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { racyRefund } from './mutants/racy-refund.js';
import { closeAll, ioredis } from './support/clients.js';
import { nextInstant, type Spec } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const T0 = 1_700_000_000_000;
const LIMIT = 6;
type Make = (o: { store?: RedisStore; clock: ManualClock; name: string }) => RateLimiter;
/**
 * A fixed window's key expires at the window's end by Redis's real clock, so an instant in a window's last
 * MARGIN_MS would see it vanish while the virtual clock stands still: such instants move to the next
 * window's start (support/histories.ts). The other algorithms' TTLs are long enough as they are.
 */
const FIXED: readonly Spec[] = [{ algorithm: 'fixed-window', limit: LIMIT, windowMs: 2_000 }];
const ALGORITHMS: readonly [string, Make][] = [
  ['token-bucket', (o) => new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 2, ...o }) as RateLimiter],
  ['sliding-window', (o) => new SlidingWindowLimiter({ limit: LIMIT, windowMs: 2_000, ...o }) as RateLimiter],
  ['fixed-window', (o) => new FixedWindowLimiter({ limit: LIMIT, windowMs: 2_000, ...o }) as RateLimiter],
  ['sliding-log', (o) => new SlidingLogLimiter({ limit: LIMIT, windowMs: 2_000, ...o }) as RateLimiter],
];

let server: RedisServer;
let clients: Redis[];
let runs = 0;

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

const failures: unknown[] = [];
/** store: a client-time store whose failures are collected (every test ends with none). */
const store = (i = 0, denyCache = true) => {
  const s = new RedisStore({ client: clients[i]!, time: 'client', timeoutMs: 5_000, denyCache });
  s.on('failure', (info: unknown) => void failures.push(info));
  return s;
};

/**
 * concurrentRefunds: many consumes, each refunding part of its cost as soon as it is admitted, fired at
 * once through two limiters (two connections) on one key at one instant. Remaining must then be
 * exactly limit − (admitted − refunded): no consume lost, none over-admitted.
 */
async function concurrentRefunds(limitersOf: (clock: ManualClock, name: string) => RateLimiter[], numRuns = 15): Promise<void> {
  const op = fc.record({ cost: fc.integer({ min: 1, max: 3 }), back: fc.integer({ min: 0, max: 3 }), via: fc.integer({ min: 0, max: 1 }) });
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 60 }), async (ops) => {
      const clock = new ManualClock(T0);
      const limiters = limitersOf(clock, `c${runs++}`);
      let admitted = 0;
      let refunded = 0;
      await Promise.all(
        ops.map(async (o) => {
          const limiter = limiters[o.via]!;
          if (!(await limiter.consume('k', o.cost)).allowed) return;
          admitted += o.cost;
          const back = Math.min(o.back, o.cost);
          if (back === 0) return;
          await limiter.refund!('k', back);
          refunded += back;
        }),
      );
      const net = admitted - refunded;
      expect(net).toBeLessThanOrEqual(LIMIT);
      expect((await limiters[0]!.peek('k')).remaining).toBe(net < LIMIT ? LIMIT - net - 1 : 0);
    }),
    { numRuns },
  );
}

describeRedis('refund on Redis', () => {
  for (const [algorithm, make] of ALGORITHMS) {
    it(`${algorithm}: decides every history of consumes and refunds as the memory store does`, async () => {
      const op = fc.record({ refund: fc.boolean(), cost: fc.integer({ min: 1, max: 8 }), wait: fc.constantFrom(0, 0, 1, 300, 999, 2_500, 5_000) });
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
          const clock = new ManualClock(T0);
          const name = `d${runs++}`;
          const memory = make({ clock, name });
          // The deny cache answers a repeated denial with Redis's last `remaining` (a lower bound), which a
          // step-by-step comparison with memory would read as a difference: off here, as in differential.test.ts.
          const redis = make({ store: store(0, false), clock, name });
          for (const [i, o] of ops.entries()) {
            clock.set(nextInstant(clock.now(), o.wait, algorithm === 'fixed-window' ? FIXED : []));
            if (o.refund) await Promise.all([memory.refund!('k', o.cost), redis.refund!('k', o.cost)]);
            else expect(await redis.consume('k', o.cost), `step ${i}`).toEqual(memory.consume('k', o.cost));
          }
          expect(await redis.peek('k')).toEqual(memory.peek('k'));
        }),
        { numRuns: 40 },
      );
    });

    it(`${algorithm}: concurrent consumes and refunds through two connections never over-admit`, async () => {
      await concurrentRefunds((clock, name) => [make({ store: store(0), clock, name }), make({ store: store(1), clock, name })]);
    });

    it(`${algorithm}: a refund beyond what was spent stops at a full key`, async () => {
      const clock = new ManualClock(T0);
      const limiter = make({ store: store(), clock, name: `f${runs++}` });
      await limiter.consume('k', 2);
      await limiter.refund!('k', 1_000);
      await limiter.refund!('never-charged', 3);
      expect([(await limiter.consume('k', LIMIT)).allowed, (await limiter.consume('k', 1)).allowed]).toEqual([true, false]);
      expect((await limiter.peek('never-charged')).remaining).toBe(LIMIT - 1);
    });
  }

  it('the concurrency property catches a refund that is not atomic (GET, step, SET: mutant)', async () => {
    const error = await concurrentRefunds((clock, name) => {
      const limiter = (i: number) =>
        new TokenBucketLimiter<'async'>({
          capacity: LIMIT,
          refillPerSecond: 2,
          clock,
          name,
          store: new RedisStore({ client: clients[i]!, time: 'client', timeoutMs: 5_000, prefix: 'racy:' }),
        });
      return [racyRefund(limiter(0), clients[0]!, 'racy:', clock), racyRefund(limiter(1), clients[1]!, 'racy:', clock)];
    }, 40).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/^Property failed/);
    expect(String(error?.cause)).toMatch(/^AssertionError: expected/); // an inexact count, not a crash
  });

  it('a composite on Redis gives every member its part back', async () => {
    const clock = new ManualClock(T0);
    const s = store();
    const both = new CompositeLimiter([
      new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, store: s, clock, name: 'p1' }),
      new FixedWindowLimiter({ limit: 4, windowMs: 60_000, store: s, clock, name: 'p2' }),
    ]);
    expect((await both.consume('{u}', 3)).allowed).toBe(true);
    await both.refund('{u}', 2);
    expect((await both.peek('{u}')).parts?.map((p) => p.remaining)).toEqual([1, 2]);
  });
});
