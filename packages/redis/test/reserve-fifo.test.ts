/**
 * reserve under concurrency on Redis beyond the shared booking checks (./booking-queue.test.ts: unit
 * bookings from four connections are exactly the memory store's queue): four connections (four
 * RedisStores, one client each) fire 40 reservations each, all at once, on one key, for every
 * algorithm, with mixed costs: every reservation that fits is granted, first come first served, where
 * "first" is the order Redis runs the scripts in (not the order they were sent: a call re-sent after
 * NOSCRIPT or an expired deadline goes behind later ones), and never early: the granted (instant,
 * cost) pairs, replayed on a fresh limiter at their instants, are all admitted. A reservation made in
 * two calls (peek, then consume at the instant the peek gave: test/mutants/peek-then-consume-reserve.ts)
 * must fail these checks, with unit costs (the queue check) as with any.
 */
import { type Limiter, ManualClock, MemoryStore, type Policy, reserve } from '@ratekeeper/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { type Granted, peekThenConsume } from './mutants/peek-then-consume-reserve.js';
import { closeAll, ioredis } from './support/clients.js';
import { type Spec, makeLimiter } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const CONNECTIONS = 4;
const EACH = 40;
const T0 = 1_700_000_000_000;
const SPECS: readonly Spec[] = [
  { algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 },
  { algorithm: 'sliding-window', limit: 5, windowMs: 10_000 },
  { algorithm: 'fixed-window', limit: 5, windowMs: 10_000 },
  { algorithm: 'sliding-log', limit: 5, windowMs: 10_000 },
];

type Reserver = (limiter: Limiter<Policy, 'async'>, key: string, cost: number) => Promise<Granted>;
const real: Reserver = async (limiter, key, cost) => reserve(limiter, key, cost);

let server: RedisServer;
const stores: RedisStore[] = [];
let run = 0;

beforeAll(async () => {
  server = await startServer();
  for (let i = 0; i < CONNECTIONS; i++) {
    const client = ioredis(server.port);
    await client.ping();
    stores.push(new RedisStore({ client, time: 'client', timeoutMs: 5000, onFailure: 'closed', batch: false }));
  }
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

/** queueHolds fires the reservations and throws the first broken guarantee it finds. */
async function queueHolds(spec: Spec, unitCosts: boolean, reserver: Reserver): Promise<void> {
  const clock = new ManualClock(T0);
  const name = `fifo${run++}`;
  const limiters = stores.map((store) => makeLimiter(spec, store, clock, name));
  const costs = limiters.map((_, c) => Array.from({ length: EACH }, (_, i) => (unitCosts ? 1 : 1 + ((i * 7 + c * 3) % 3))));
  const answers = await Promise.all(limiters.map((limiter, c) => Promise.all((costs[c] as number[]).map((cost) => reserver(limiter, 'k', cost)))));
  const granted: { at: number; cost: number }[] = [];
  for (const [c, list] of answers.entries()) {
    for (const [i, r] of list.entries()) {
      if (!r.ok) throw new Error(`connection ${c}, reservation ${i}: refused, though its cost fits`);
      granted.push({ at: r.at, cost: (costs[c] as number[])[i] as number });
    }
  }
  granted.sort((a, b) => a.at - b.at);
  if (unitCosts) {
    // First come first served: taken in the order of their instants, the bookings are exactly what a
    // one-at-a-time queue gives, so no booking took a slot one made before it should have had.
    const queue = makeLimiter(spec, new MemoryStore(), new ManualClock(T0));
    const want = granted.map(() => reserve(queue, 'k', 1).at);
    const got = granted.map((g) => g.at);
    if (got.some((at, i) => at !== want[i])) throw new Error(`the bookings are not a first-come queue: got ${got.map((t) => t - T0)}, a queue gives ${want.map((t) => t - T0)}`);
  }
  const replayClock = new ManualClock(T0);
  const fresh = makeLimiter(spec, new MemoryStore(), replayClock);
  for (const [i, g] of granted.entries()) {
    replayClock.set(g.at);
    if (!fresh.consume('k', g.cost).allowed) throw new Error(`booking ${i} (cost ${g.cost}) at ${g.at} is early: a fresh limiter denies it there`);
  }
}

describeRedis('reservations from several connections at once', () => {
  for (const spec of SPECS) {
    it(`serves ${spec.algorithm} reservations of mixed costs first come first, never early`, async () => {
      await queueHolds(spec, false, real);
    });

    it(`catches a ${spec.algorithm} reservation made in two calls, peek then consume (mutant)`, async () => {
      await expect(queueHolds(spec, true, peekThenConsume)).rejects.toThrow(/refused, though its cost fits|not a first-come queue|is early/);
    });
  }
});
