/**
 * Bans and refunds on Redis (a real redis-server started by the test): a refund that leaves room for
 * the denied cost lifts the ban in the same script (core's ban.ts), so six concurrent successful
 * logins, charged through two connections and refunded through either, leave no ban; six failures
 * still ban for the hour. Random sequences of consumes, refunds and clock moves give the memory
 * store's exact decisions for every refundable algorithm (differential). The old behaviour, bans that
 * outlive their refunds (mutant), is caught by the same check.
 */
import { BanLimiter, type Clock, type Decision, FixedWindowLimiter, ManualClock, SlidingWindowLimiter, type Store, TokenBucketLimiter } from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FailureInfo, RedisStore } from '../src/index.js';
import { BanOutlivesRefundStore } from './mutants/ban-outlives-refund.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % (15 * MIN));

let server: RedisServer;
let run = 0;
const failures: FailureInfo[] = [];

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

type Kind = typeof RedisStore;
/** stores makes two stores on one prefix, each with its own connection: two processes sharing Redis. */
function stores(kind: Kind = RedisStore): [RedisStore, RedisStore] {
  const prefix = `br${run++}:`;
  const make = () => {
    const s = new kind({ client: ioredis(server.port), time: 'client', timeoutMs: 5_000, prefix });
    s.on('failure', (info) => void failures.push(info));
    return s;
  };
  return [make(), make()];
}

type Make = (clock: Clock, store: Store<'async'> | undefined) => BanLimiter<'async'>;
const LOGINS: readonly [string, Make][] = [
  [
    'fixed-window',
    (clock, store) => new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 5, windowMs: 15 * MIN, name: 'login', clock, ...(store && { store }) }) as never, banMs: HOUR }),
  ],
  [
    'sliding-window',
    (clock, store) => new BanLimiter({ limiter: new SlidingWindowLimiter({ limit: 5, windowMs: 15 * MIN, name: 'login', clock, ...(store && { store }) }) as never, banMs: HOUR }),
  ],
  [
    'token-bucket',
    (clock, store) =>
      new BanLimiter({ limiter: new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1 / 180, name: 'login', clock, ...(store && { store }) }) as never, banMs: HOUR }),
  ],
];

/** concurrentSuccesses charges six logins at once through two connections, refunds the admitted ones through the other, and answers what the next login got. */
async function concurrentSuccesses(make: Make, kind?: Kind): Promise<Decision> {
  const clock = new ManualClock(T0);
  const [a, b] = stores(kind);
  const [one, two] = [make(clock, a), make(clock, b)];
  const seen = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? one : two).consume('alice')));
  expect(seen.filter((d) => d.allowed)).toHaveLength(5);
  clock.advance(200);
  await Promise.all(seen.flatMap((d, i) => (d.allowed ? [(i % 2 === 0 ? two : one).refund('alice')] : [])));
  return one.consume('alice');
}

describeRedis('bans lifted by refunds on Redis', () => {
  for (const [name, make] of LOGINS) {
    it(`${name}: six concurrent successful logins leave no ban, whichever process refunds`, async () => {
      expect(await concurrentSuccesses(make)).toMatchObject({ allowed: true });
      expect(failures).toEqual([]);
    });

    it(`${name}: the same check catches bans that outlive their refunds (mutant)`, async () => {
      expect(await concurrentSuccesses(make, BanOutlivesRefundStore)).toMatchObject({ allowed: false, retryAfterMs: HOUR - 200 });
    });

    it(`${name}: six failures ban for the whole hour`, async () => {
      const clock = new ManualClock(T0);
      const login = make(clock, stores()[0]);
      const seen = await Promise.all(Array.from({ length: 6 }, () => login.consume('bob')));
      expect(seen.map((d) => d.allowed).sort()).toEqual([false, true, true, true, true, true]);
      clock.advance(HOUR - 1);
      expect(await login.consume('bob')).toMatchObject({ allowed: false, retryAfterMs: 1, remaining: 0 });
      clock.advance(1);
      expect((await login.consume('bob')).allowed).toBe(true);
    });

    it(`${name}: consumes, refunds and clock moves decide as on the memory store`, async () => {
      type Op = { kind: 'consume' | 'refund' | 'peek'; cost: number } | { kind: 'move'; dt: number };
      const op: fc.Arbitrary<Op> = fc.oneof(
        { arbitrary: fc.record({ kind: fc.constant('consume' as const), cost: fc.integer({ min: 1, max: 3 }) }), weight: 4 },
        { arbitrary: fc.record({ kind: fc.constant('refund' as const), cost: fc.integer({ min: 1, max: 3 }) }), weight: 3 },
        { arbitrary: fc.record({ kind: fc.constant('peek' as const), cost: fc.integer({ min: 1, max: 3 }) }), weight: 1 },
        { arbitrary: fc.record({ kind: fc.constant('move' as const), dt: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 * MIN })) }), weight: 2 },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
          const clock = new ManualClock(T0);
          const memory = make(clock, undefined) as unknown as BanLimiter<'sync'>;
          const remote = make(clock, stores()[0]);
          for (const [i, o] of ops.entries()) {
            if (o.kind === 'move') clock.advance(o.dt);
            else if (o.kind === 'refund') {
              memory.refund('k', o.cost);
              await remote.refund('k', o.cost);
            } else expect(await remote[o.kind]('k', o.cost), `step ${i}: ${o.kind} ${o.cost}`).toEqual(memory[o.kind]('k', o.cost));
          }
        }),
        { numRuns: 40 },
      );
      expect(failures).toEqual([]);
    });
  }
});
