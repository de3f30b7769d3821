/**
 * What the Lua port adds to the store contract's differential (./store-contract.test.ts replays every
 * algorithm, composite, booking, ban and lease history on memory and on Redis in client time, through
 * ioredis and node-redis, and catches four porting mistakes, with a clock that never steps back on
 * Redis): the same rate histories with the clock stepping back, through both clients; figures too wide
 * for the compact reply; a GCRA emission interval whose rate does not round-trip; sliding-log keys
 * within 8 bytes per unit of the limit (plus the 9-byte tail of TTL-keep); and no key left without a TTL.
 */
import { CompositeLimiter, GcraLimiter, ManualClock, MemoryStore, type RateLimiter } from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FailureInfo, RedisStore } from '../src/index.js';
import { CLIENT_KINDS, type ClientKind, client, closeAll, ioredis } from './support/clients.js';
import { type Spec, type Step, composites, makeLimiter, instantsOf, specs, startInstant, steps } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';

let server: RedisServer;
const stores = new Map<ClientKind, RedisStore>();
const failures: FailureInfo[] = [];
let run = 0;
/** RATEKEEPER_DIFF_RUNS raises the number of histories per property (nightly runs use more). */
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 30);

beforeAll(async () => {
  server = await startServer();
  for (const kind of CLIENT_KINDS) {
    // Field for field: the deny cache answers a denial's `remaining` as Redis last gave it (see
    // test/deny-cache-policies.test.ts for the verdicts with it on); batching stays on.
    const store = new RedisStore({ client: await client(kind, server.port), time: 'client', timeoutMs: 5000, onFailure: 'closed', denyCache: false });
    store.on('failure', (info) => failures.push(info));
    stores.set(kind, store);
  }
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

async function replay(members: readonly Spec[], start: number, history: readonly Step[], kind: ClientKind): Promise<void> {
  const clock = new ManualClock(start);
  const store = stores.get(kind) as RedisStore;
  const memoryStore = new MemoryStore();
  const memory: RateLimiter<'sync'> =
    members.length === 1 ? makeLimiter(members[0] as Spec, memoryStore, clock) : new CompositeLimiter(members.map((spec) => makeLimiter(spec, memoryStore, clock)));
  const redis: RateLimiter<'async'> =
    members.length === 1 ? makeLimiter(members[0] as Spec, store, clock) : new CompositeLimiter(members.map((spec) => makeLimiter(spec, store, clock)));
  const prefix = `run${run++}:`;
  const instants = instantsOf(start, members);
  for (const [i, step] of history.entries()) {
    const now = instants.next(step.dt);
    clock.set(now);
    const key = `${prefix}${step.key}`;
    const where = `step ${i} (${step.op} cost ${step.cost} at ${now})`;
    if (step.op === 'reset') {
      memory.reset(key);
      await redis.reset(key);
    } else if (step.op === 'allow') {
      expect(await redis.allow(key, step.cost), where).toBe(memory.allow(key, step.cost));
    } else {
      const want = memory[step.op](key, step.cost);
      expect(await redis[step.op](key, step.cost), where).toEqual(want);
    }
  }
  expect(failures).toEqual([]);
}

function property(members: fc.Arbitrary<Spec[]>, kind: ClientKind) {
  return fc.asyncProperty(
    members.chain((m) => fc.tuple(fc.constant(m), startInstant, steps(m))),
    ([m, start, history]) => replay(m, start, history, kind),
  );
}

describeRedis('the Lua scripts decide exactly as the TypeScript steps', () => {
  // The contract's histories never step the clock back on Redis (./store-contract.test.ts says why):
  // here they do, over consumes, peeks, allows and resets, which leave every key a TTL of MARGIN_MS or
  // more, so a key is never gone where memory still has it. Default policy names: the key-size check
  // below reads the limit from them.
  for (const kind of CLIENT_KINDS) {
    for (const algorithm of ['token-bucket', 'sliding-window', 'fixed-window', 'first-request-window', 'sliding-log'] as const) {
      it(`gives identical ${algorithm} decisions on memory and on Redis through ${kind}, the clock stepping back`, async () => {
        await fc.assert(
          property(
            specs[algorithm].map((s) => [s as Spec]),
            kind,
          ),
          { numRuns: RUNS },
        );
      });
    }
    it(`gives identical composite decisions on memory and on Redis through ${kind}, the clock stepping back`, async () => {
      await fc.assert(property(composites, kind), { numRuns: RUNS });
    });
  }

  // The compact reply holds remaining and resetAfterMs in 50 bits together: the first fits (remaining
  // in 32 bits, a reset of 11), the other two (3 + 33 bits in the 20-bit split, 40 + 11 bits) go out
  // in four values.
  it('gives identical decisions where the figures are wide, compact or too wide for the compact reply', async () => {
    const wide: Spec[] = [
      { algorithm: 'token-bucket', capacity: 3_000_000, refillPerSecond: 1 },
      { algorithm: 'fixed-window', limit: 5, windowMs: 5_000_000_000 },
      { algorithm: 'token-bucket', capacity: 1_000_000_000_000, refillPerSecond: 1 },
    ];
    const moves: Step[] = [0, 0, 1000, 0].map((dt) => ({ op: 'consume', dt, cost: 2, key: 0 }));
    for (const kind of CLIENT_KINDS) {
      for (const members of [[wide[0] as Spec], [wide[1] as Spec], [wide[2] as Spec], wide]) await replay(members, 1_700_000_000_000, moves, kind);
    }
  });

  it('decides GcraLimiter as memory does with an emission interval whose rate does not round-trip (T = 1445 ms)', async () => {
    const T = 1445; // 1000 / (1000 / 1445) !== 1445: the policy must carry T itself to Redis
    for (const kind of CLIENT_KINDS) {
      const clock = new ManualClock(1_700_000_000_000);
      const memory = new GcraLimiter({ emissionIntervalMs: T, burst: 3, clock, name: `gcra-${kind}` });
      const redis = new GcraLimiter({ emissionIntervalMs: T, burst: 3, clock, store: stores.get(kind) as RedisStore, name: `gcra-${kind}` });
      const key = `gcra-run${run++}`;
      for (const dt of [0, 0, 0, 0, T - 1, 1, 0, 3 * T - 1, 1, 0, 0, 0]) {
        clock.advance(dt);
        expect(await redis.consume(key), `at +${dt}`).toEqual(memory.consume(key));
      }
    }
    expect(failures).toEqual([]);
  });

  it('keeps each sliding-log key within 8 bytes per unit of its limit', async () => {
    const redis = ioredis(server.port);
    const sizes: [string, number, number][] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', 'rk:sl-*', 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const bytes = await redis.strlen(key);
        // A key can expire (in real time) between SCAN and STRLEN, which then reads 0: skip those.
        if (bytes === 0 && (await redis.exists(key)) === 0) continue;
        sizes.push([key, bytes, 8 * Number(/^rk:sl-(\d+)-/.exec(key)?.[1])]);
      }
    } while (cursor !== '0');
    expect(sizes.length).toBeGreaterThan(10);
    // The log (8 bytes a unit), followed by the 9-byte tail when a decision wrote it (TTL-keep).
    const log = (bytes: number) => (bytes % 8 === 1 ? bytes - 9 : bytes);
    expect(sizes.filter(([, bytes, most]) => !(log(bytes) >= 8 && log(bytes) <= most && log(bytes) % 8 === 0))).toEqual([]);
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(ioredis(server.port))).toEqual([]);
  });
});
