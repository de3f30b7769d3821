/**
 * Flow control of the batcher (src/transport/batcher.ts, "How many"): a burst of 2,000 calls from one process
 * goes out as its first SOLO_BELOW - 1 calls alone (the process was quiet) and about 31 batches, of
 * which at most MAX_IN_FLIGHT are on the wire at any moment, and none while the calls alone are; the rest wait
 * in order and go as answers come. Redis runs every command it has read before it writes any reply,
 * so without the bound a burst from several processes made a healthy Redis silent for longer than the
 * store's liveness timeout. The check counts the batch calls outstanding at the client, with the
 * store's default options, and the exact admissions (the held batches lose and reorder nothing).
 * Removing the bound makes the first check fail (32 outstanding).
 *
 * And the split (src/transport/batcher.ts, "Why the cap"): 50 callers in a closed loop, each making its next
 * call when its last is answered, keep two or more batches on the wire, none carrying more than half
 * of the 50 once the burst of their first calls is out (the cap follows the calls outstanding at each answer), so that Redis runs one while the
 * process reads another's reply. One batch of all the calls (the cap left at maxSize, as before it
 * existed) makes the check on sizes fail (49 calls).
 *
 * And a burst after a quiet spell, when the cap has fallen to its floor of 8: the batches it makes
 * beyond the 4 on the wire join up to maxSize while they wait, so 2,000 calls take about 2,000 / 64
 * round trips, not 2,000 / 8. Holding each small batch apart makes the count check fail (about 250).
 * A call whose cost is too large for the batch layout stays alone while held, and every call around
 * it decides as the memory store does in order; merging calls into it makes that check fail (in a
 * batch of 11 policies its integer passes 2^53 and is read back as another policy's call).
 */
import { type Decision, ManualClock, MemoryStore, TokenBucketLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { MAX_IN_FLIGHT, SOLO_BELOW } from '../src/transport/batcher.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

let server: RedisServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

/**
 * counting wraps a client so that `peak` is the most script calls (EVALSHA, FCALL) outstanding at once,
 * `batchPeak` the most batches (calls of two keys or more: single decisions here) and `sizes` the
 * number of keys each call carried (a batch's calls).
 */
function counting(client: Redis) {
  const seen = { outstanding: 0, peak: 0, batches: 0, batchPeak: 0, calls: 0, sizes: [] as number[] };
  const wrapped = {
    call(command: string, ...args: string[]) {
      if (command !== 'EVALSHA' && command !== 'EVAL' && command !== 'FCALL') return client.call(command, ...args);
      const batch = Number(args[1]) > 1;
      seen.calls++;
      seen.sizes.push(Number(args[1]));
      seen.peak = Math.max(seen.peak, ++seen.outstanding);
      if (batch) seen.batchPeak = Math.max(seen.batchPeak, ++seen.batches);
      return client.call(command, ...args).finally(() => {
        seen.outstanding--;
        if (batch) seen.batches--;
      });
    },
  };
  return { wrapped, seen };
}

/** ALONE: the calls of a burst that go alone before batching starts (the process was quiet: src/transport/batcher.ts). */
const ALONE = SOLO_BELOW - 1;

// Every store here has a fixed fallback divisor: no peer count beats, so every call on the wire is a batch.
describeRedis('batcher flow control', () => {
  it(`keeps at most ${MAX_IN_FLIGHT} batches of one process on the wire, and decides a 2,000-call burst exactly`, async () => {
    const { wrapped, seen } = counting(ioredis(server.port));
    const store = new RedisStore({ client: wrapped, fallbackDivisor: 1 });
    const limiter = new TokenBucketLimiter({ capacity: 500, refillPerSecond: 1e-6, store });
    await limiter.consume('warm');
    seen.peak = 0;
    seen.calls = 0;
    const decisions = await Promise.all(Array.from({ length: 2000 }, () => limiter.consume('burst')));
    expect(decisions.filter((d) => d.allowed).length).toBe(500);
    expect(decisions.filter((d) => d.failure !== undefined)).toEqual([]);
    // The first 500 in call order are the admitted ones: held batches keep their order.
    expect(decisions.findIndex((d) => !d.allowed)).toBe(500);
    // The burst's first calls go alone, and no batch goes while they or MAX_IN_FLIGHT batches are out.
    expect(seen.batchPeak).toBe(MAX_IN_FLIGHT);
    expect(seen.peak).toBe(ALONE);
    expect(seen.calls).toBeGreaterThan(ALONE + MAX_IN_FLIGHT);
    // Every call but the first ones (alone) went in a batch, or was held until a denial of the key came
    // back and answered by the deny cache (./hot-key-batch.test.ts).
    expect(store.batching.calls + store.denyCacheHits).toBe(2000 - ALONE);
  });
});

describeRedis('batcher split', () => {
  it('sends no batch of more than half the calls outstanding, so that two or more are on the wire', async () => {
    const { wrapped, seen } = counting(ioredis(server.port));
    const store = new RedisStore({ client: wrapped, fallbackDivisor: 1 });
    const limiter = new TokenBucketLimiter({ capacity: 1e9, refillPerSecond: 1, store });
    await limiter.consume('warm');
    seen.peak = 0;
    seen.sizes = [];
    let admitted = 0;
    const caller = async (c: number) => {
      for (let i = 0; i < 40; i++) if ((await limiter.consume(`caller-${c}`)).allowed) admitted++;
    };
    await Promise.all(Array.from({ length: 50 }, (_, c) => caller(c)));
    expect(admitted).toBe(2000);
    // The callers' first calls come at once, a burst: its first ALONE calls go alone and the rest wait in
    // one held batch (with, on a loaded machine, the next calls of callers whose lone call was answered
    // before it went: at most one each). From then on, the closed loop: no batch above half of the 50.
    expect(seen.sizes.slice(0, ALONE)).toEqual(Array(ALONE).fill(1));
    expect(seen.sizes[ALONE]).toBeGreaterThanOrEqual(50 - ALONE);
    expect(seen.sizes[ALONE]).toBeLessThanOrEqual(50);
    expect(Math.max(...seen.sizes.slice(ALONE + 1))).toBeLessThanOrEqual(25);
    expect(seen.peak).toBeGreaterThanOrEqual(2);
    expect(store.batching.calls).toBeGreaterThan(1900);
  });
});

describeRedis('batcher holding', () => {
  it('merges the batches a burst makes while 4 are on the wire, up to maxBatchSize', async () => {
    const { wrapped, seen } = counting(ioredis(server.port));
    const store = new RedisStore({ client: wrapped, fallbackDivisor: 1 });
    const limiter = new TokenBucketLimiter({ capacity: 500, refillPerSecond: 1e-6, store });
    for (let i = 0; i < 3; i++) await limiter.consume('quiet'); // one call at a time: the cap falls to 8
    seen.peak = 0;
    seen.calls = 0;
    seen.sizes = [];
    const decisions = await Promise.all(Array.from({ length: 2000 }, () => limiter.consume('after-quiet')));
    expect(decisions.filter((d) => d.allowed).length).toBe(500);
    expect(decisions.findIndex((d) => !d.allowed)).toBe(500);
    expect(seen.batchPeak).toBe(MAX_IN_FLIGHT);
    expect(seen.calls).toBeLessThanOrEqual(ALONE + Math.ceil(2000 / 64) + MAX_IN_FLIGHT + 1);
    expect(Math.max(...seen.sizes)).toBe(64);
  });
});

describeRedis('batcher holding a cost too large for a batch', () => {
  it('keeps it alone while calls around it are held and merged, and decides them all as memory does in order', async () => {
    const { wrapped } = counting(ioredis(server.port));
    // Client time on a clock that stands still, so the memory store's decisions are the reference.
    const store = new RedisStore({ client: wrapped, time: 'client', fallbackDivisor: 1 });
    const clock = new ManualClock(1_000_000);
    // Above 2^53 / 64, so it goes alone. In a batch of G = 11 policies its one integer, (cost − 1)·11 + 1,
    // would pass 2^53, where doubles are 2 apart, and be read back as another policy's call.
    const huge = 900_000_000_000_003;
    const limiters = (on: RedisStore | MemoryStore) => [
      new TokenBucketLimiter({ capacity: 999_999_999_999_999, refillPerSecond: 1000, store: on as never, clock }),
      ...Array.from({ length: 10 }, (_, i) => new TokenBucketLimiter({ capacity: 1e9 + i, refillPerSecond: 100, store: on as never, clock })),
    ];
    const remote = limiters(store);
    const memory = limiters(new MemoryStore());
    // The client-time batch script loaded first: a script's first calls answer NOSCRIPT and are sent
    // again after the calls behind them (see Limits in the README), which this test is not about.
    await Promise.all(Array.from({ length: 3 }, () => (remote[1] as TokenBucketLimiter).consume('load')));
    // Redis expires a key by its own clock: a first large spend keeps every bucket's key for minutes.
    for (let l = 0; l < 11; l++) {
      await (remote[l] as TokenBucketLimiter).consume('mixed', 100_000);
      (memory[l] as TokenBucketLimiter).consume('mixed', 100_000);
    } // one call at a time: the cap falls to 8
    // 300 calls over 11 policies, the huge one, 300 more: every batch of them holds all 11.
    const plan = [...Array.from({ length: 300 }, (_, i) => [i % 11, 1]), [0, huge], ...Array.from({ length: 300 }, (_, i) => [i % 11, 1])] as [number, number][];
    const decisions = await Promise.all(plan.map(([l, cost]) => (remote[l] as TokenBucketLimiter).consume('mixed', cost)));
    const expected = plan.map(([l, cost]) => (memory[l] as TokenBucketLimiter).consume('mixed', cost) as Decision);
    expect(decisions.every((d) => d.failure === undefined)).toBe(true);
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual(expected.map((d) => [d.allowed, d.remaining]));
  });
});
