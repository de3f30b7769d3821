/**
 * Batching changes no decision: the differential histories (test/support/histories.ts) are fired at
 * Redis all at once, each call at its own instant of a ManualClock (client time), without waiting for
 * any answer, so that they go to Redis in batches (histories of SOLO_BELOW + 8 steps or more: the
 * first calls of a process quiet until then go alone, src/transport/batcher.ts); every decision must equal the memory store's,
 * replayed one by one, field for field. Resets and composites in the same turn must keep their place
 * in the order. Composites batch too (a call of several policies, all or nothing in the batch
 * script): histories of composites alone, over two to four members of any algorithms, fired at once,
 * must decide as memory's composite does in order. The store's counters show that batches of more
 * than one call were really sent.
 */
import { CompositeLimiter, type Decision, ManualClock, MemoryStore, type RateLimiter } from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { SOLO_BELOW } from '../src/transport/batcher.js';
import { CLIENT_KINDS, type ClientKind, client, closeAll } from './support/clients.js';
import { type Spec, type Step, makeLimiter, instantsOf, specs, startInstant, steps } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

let server: RedisServer;
const stores = new Map<ClientKind, RedisStore>();
let run = 0;
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 30);

beforeAll(async () => {
  server = await startServer();
  for (const kind of CLIENT_KINDS) {
    stores.set(kind, new RedisStore({ client: await client(kind, server.port), time: 'client', timeoutMs: 5000, onFailure: 'closed', denyCache: false }));
  }
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

type Answer = Decision | boolean | undefined;

/**
 * warm loads the single, batch and composite scripts first (and gives the store its first server-clock
 * sample): a call answered NOSCRIPT, or expired, is sent again after the reply, behind calls made later, so a script's first use may reorder
 * concurrent calls (which promise no order among themselves); the property checks order from then on.
 */
async function warm(spec: Spec, kind: ClientKind): Promise<void> {
  const store = stores.get(kind) as RedisStore;
  const clock = new ManualClock(1_700_000_000_000);
  const limiter = makeLimiter(spec, store, clock);
  const pair = new CompositeLimiter([limiter, makeLimiter(spec, store, clock, `warm-other${run++}`)]);
  await limiter.consume('warm');
  // The first SOLO_BELOW - 1 calls of a burst go alone; the others go in batches.
  await Promise.all([...Array.from({ length: SOLO_BELOW + 2 }, () => limiter.peek('warm')), limiter.consume('warm')]);
  await pair.consume('warm');
}

async function replayAtOnce(spec: Spec, start: number, history: readonly Step[], kind: ClientKind): Promise<void> {
  const clock = new ManualClock(start);
  const store = stores.get(kind) as RedisStore;
  const memoryStore = new MemoryStore();
  const memory = makeLimiter(spec, memoryStore, clock);
  const redis = makeLimiter(spec, store, clock);
  // A composite over the same limiter and another, so its calls interleave with the single ones.
  const other = `other${run}`;
  const memoryPair: RateLimiter<'sync'> = new CompositeLimiter([memory, makeLimiter(spec, memoryStore, clock, other)]);
  const redisPair: RateLimiter<'async'> = new CompositeLimiter([redis, makeLimiter(spec, store, clock, other)]);
  const prefix = `batch${run++}:`;
  const want: Answer[] = [];
  const got: Promise<Answer>[] = [];
  const instants = instantsOf(start, [spec]);
  for (const [i, step] of history.entries()) {
    const now = instants.next(step.dt);
    clock.set(now);
    const key = `${prefix}${step.key}`;
    if (step.op === 'reset') {
      memory.reset(key);
      want.push(undefined);
      got.push(redis.reset(key).then(() => undefined));
    } else if (step.op === 'allow') {
      want.push(memory.allow(key, step.cost));
      got.push(redis.allow(key, step.cost));
    } else if (i % 7 === 6) {
      want.push(memoryPair[step.op](key, step.cost));
      got.push(redisPair[step.op](key, step.cost));
    } else {
      want.push(memory[step.op](key, step.cost));
      got.push(redis[step.op](key, step.cost));
    }
  }
  const answers = await Promise.all(got);
  answers.forEach((answer, i) => expect(answer, `step ${i} (${history[i]?.op} cost ${history[i]?.cost})`).toEqual(want[i]));
}

const composites = fc
  .subarray([specs['token-bucket'], specs['sliding-window'], specs['fixed-window'], specs['first-request-window'], specs['sliding-log']], { minLength: 2 })
  .chain((arbs) => fc.tuple(...arbs))
  .map((members) => members as Spec[]);

/** replayCompositesAtOnce fires a history of composite calls at once, every member on the same key. */
async function replayCompositesAtOnce(members: readonly Spec[], start: number, history: readonly Step[], kind: ClientKind): Promise<void> {
  const clock = new ManualClock(start);
  const store = stores.get(kind) as RedisStore;
  const memoryStore = new MemoryStore();
  const id = run++;
  const memory = new CompositeLimiter(members.map((spec, i) => makeLimiter(spec, memoryStore, clock, `c${id}-${i}`)));
  const redis = new CompositeLimiter(members.map((spec, i) => makeLimiter(spec, store, clock, `c${id}-${i}`)));
  // Warm the composite and batch scripts, and the server-clock sample, outside the history (see warm):
  // the first call goes alone, then a burst's first calls alone and the others in batches.
  await redis.consume('warm');
  await Promise.all(Array.from({ length: SOLO_BELOW + 2 }, () => redis.peek('warm')));
  const want: Answer[] = [];
  const got: Promise<Answer>[] = [];
  const instants = instantsOf(start, members);
  for (const step of history) {
    const now = instants.next(step.dt);
    clock.set(now);
    const key = `composite${id}:${step.key}`;
    if (step.op === 'reset') {
      memory.reset(key);
      want.push(undefined);
      got.push(redis.reset(key).then(() => undefined));
    } else if (step.op === 'allow') {
      want.push(memory.allow(key, step.cost));
      got.push(redis.allow(key, step.cost));
    } else {
      want.push(memory[step.op](key, step.cost));
      got.push(redis[step.op](key, step.cost));
    }
  }
  const answers = await Promise.all(got);
  answers.forEach((answer, i) => expect(answer, `step ${i} (${history[i]?.op} cost ${history[i]?.cost})`).toEqual(want[i]));
}

describeRedis('batched decisions equal one-by-one decisions', () => {
  // A call carries its cost and group as one integer, (cost - 1)·G + g, which must stay below 2^53: a
  // cost above 2^53 / maxBatchSize goes alone, after the queued calls, keeping its place in the order.
  it('sends a cost too large for the batch layout alone, in order', async () => {
    const store = stores.get('ioredis') as RedisStore;
    const clock = new ManualClock(1_700_000_000_000);
    const spec: Spec = { algorithm: 'fixed-window', limit: 999_999_999_999_999, windowMs: 60_000 };
    // 20 policies in one turn: batched, a cost of 2^49 would need (2^49 - 1)·20 + g > 2^53.
    const names = Array.from({ length: 20 }, () => `huge${run++}`);
    const memoryStore = new MemoryStore();
    const memory = names.map((name) => makeLimiter(spec, memoryStore, clock, name));
    const redis = names.map((name) => makeLimiter(spec, store, clock, name));
    await Promise.all([redis[0]?.consume('warm'), redis[1]?.consume('warm'), redis[2]?.consume('warm')]);
    const calls = names.flatMap((_, i) => [
      [i, 2 ** 49],
      [i, 1],
      [i, 2 ** 49],
    ]) as [number, number][];
    const got = await Promise.all(calls.map(([i, cost]) => redis[i]?.consume('k', cost)));
    expect(got).toEqual(calls.map(([i, cost]) => memory[i]?.consume('k', cost)));
  });

  for (const kind of CLIENT_KINDS) {
    it(`decides composite histories fired at once as memory's composite decides them in order, through ${kind}`, async () => {
      const before = (stores.get(kind) as RedisStore).batching.calls;
      await fc.assert(
        fc.asyncProperty(
          composites.chain((m) => fc.tuple(fc.constant(m), startInstant, steps(m, SOLO_BELOW + 8))),
          ([members, start, history]) => replayCompositesAtOnce(members, start, history, kind),
        ),
        { numRuns: RUNS },
      );
      expect((stores.get(kind) as RedisStore).batching.calls - before).toBeGreaterThan(RUNS);
    });
  }

  for (const kind of CLIENT_KINDS) {
    for (const algorithm of ['token-bucket', 'sliding-window', 'fixed-window', 'first-request-window'] as const) {
      it(`decides ${algorithm} histories fired at once as memory decides them in order, through ${kind}`, async () => {
        const before = (stores.get(kind) as RedisStore).batching.calls;
        await fc.assert(
          fc.asyncProperty(
            specs[algorithm].chain((s) => fc.tuple(fc.constant(s as Spec), startInstant, steps([s as Spec], SOLO_BELOW + 8))),
            async ([spec, start, history]) => {
              await warm(spec, kind);
              await replayAtOnce(spec, start, history, kind);
            },
          ),
          { numRuns: RUNS },
        );
        expect((stores.get(kind) as RedisStore).batching.calls - before).toBeGreaterThan(RUNS);
      });
    }
  }
});
