/**
 * A composite under concurrency: 8 worker processes send 50 users × 40 requests (costs 1 to 3, users
 * shuffled across workers) through a composite of a fixed window (limit 10) and a sliding window
 * (limit 8) on Redis. All or nothing means a request the sliding window denies costs the fixed window
 * nothing, so for every user both members' counters equal exactly the cost admitted and no user is
 * admitted more than 8. With batching off every decision is one script call (INFO commandstats counts
 * one EVALSHA per request); with batching on (the default) the same holds with far fewer calls, each
 * deciding many composite requests in order. A composite that consumes its members separately (the
 * parallel-union mutant) must break the counter equality, and a batch that decides every call from one
 * snapshot of its keys (the snapshot-batch mutant) must admit some user more than 8.
 */
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { storageKey } from '../src/index.js';
import { closeAll, ioredis } from './support/clients.js';
import type { Spec } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { readState } from './support/state.js';
import { immortalKeys } from './support/ttl.js';
import { WorkerPool, type WorkerReport, type WorkerSetup } from './support/workers.js';

const WORKERS = 8;
const USERS = 50;
const PER_USER = 40;
const FIXED: Spec = { algorithm: 'fixed-window', limit: 10, windowMs: 1e12 };
const SLIDING: Spec = { algorithm: 'sliding-window', limit: 8, windowMs: 1e12 };

let server: RedisServer;
let pool: WorkerPool;
let redis: Redis;

beforeAll(async () => {
  server = await startServer();
  pool = new WorkerPool(WORKERS);
  redis = ioredis(server.port);
});

afterAll(async () => {
  pool?.close();
  await closeAll();
  await server?.stop();
});

/** The requests, shuffled by a seeded generator and dealt round-robin to the workers. */
function deal(prefix: string, seed: number): (readonly [string, number])[][] {
  const requests = fc.sample(
    fc
      .shuffledSubarray(
        Array.from({ length: USERS * PER_USER }, (_, i) => i),
        { minLength: USERS * PER_USER },
      )
      .chain((order) => fc.tuple(fc.constant(order), fc.array(fc.integer({ min: 1, max: 3 }), { minLength: order.length, maxLength: order.length }))),
    { numRuns: 1, seed },
  )[0] as [number[], number[]];
  const [order, costs] = requests;
  const hands: (readonly [string, number])[][] = Array.from({ length: WORKERS }, () => []);
  order.forEach((n, i) => hands[i % WORKERS]?.push([`${prefix}user-${n % USERS}`, costs[i] as number]));
  return hands;
}

async function runComposite(composite: 'atomic' | 'parallel-union', prefix: string, batch: boolean, store: WorkerSetup['store'] = 'redis'): Promise<WorkerReport[]> {
  const hands = deal(prefix, 42);
  const setups: WorkerSetup[] = hands.map((requests) => ({
    port: server.port,
    client: 'ioredis',
    store,
    batch,
    prefix: 'rk:',
    members: [FIXED, SLIDING],
    composite,
    skewMs: 0,
    requests,
    // This test counts script calls: a budget no queue here outlasts keeps every call to one attempt
    // (a call refused as past its deadline is sent again, see src/transport/remote.ts), and a fixed fallback
    // divisor sends no peer count beats.
    timeoutMs: 10_000,
    fallbackDivisor: 1,
  }));
  return pool.run(setups);
}

/** counted reads what each member recorded for `user`: the fixed window's count, the sliding window's current. */
async function counted(user: string): Promise<[number, number]> {
  const fixed = await readState(redis, storageKey('rk:', 'fw-10-1000000000000', user));
  const sliding = await readState(redis, storageKey('rk:', 'sw-8-1000000000000', user));
  return [fixed?.[1] ?? 0, sliding?.[2] ?? 0];
}

function admittedByUser(reports: readonly WorkerReport[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const r of reports) for (const [user, cost] of Object.entries(r.admittedCost)) sums.set(user, (sums.get(user) ?? 0) + cost);
  return sums;
}

function evalshaCalls(): number {
  const line = server
    .cli('INFO', 'commandstats')
    .split('\n')
    .find((l) => l.startsWith('cmdstat_evalsha:'));
  return Number(/calls=(\d+)/.exec(line ?? '')?.[1] ?? 0);
}

describeRedis('a composite under concurrency, 8 processes', () => {
  /** expectExact checks every user of `prefix`: both counters equal the cost admitted, at most 8. */
  async function expectExact(reports: readonly WorkerReport[], prefix: string): Promise<void> {
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    const admitted = admittedByUser(reports);
    let total = 0;
    for (let u = 0; u < USERS; u++) {
      const user = `${prefix}user-${u}`;
      const cost = admitted.get(user) ?? 0;
      expect(cost).toBeLessThanOrEqual(8);
      expect(cost).toBeGreaterThanOrEqual(6);
      expect(await counted(user), user).toEqual([cost, cost]);
      total += cost;
    }
    expect(total).toBeGreaterThan(0);
  }

  it('records in each member exactly the cost admitted, in one script call per request with batching off', async () => {
    await runComposite('atomic', 'warm-', false);
    server.cli('CONFIG', 'RESETSTAT');
    const reports = await runComposite('atomic', 'a-', false);
    // One call per request, plus the warm-up request each worker makes before the barrier: two calls,
    // since a new store's first script expires at once to learn the server's clock.
    expect(evalshaCalls()).toBe(USERS * PER_USER + 2 * WORKERS);
    await expectExact(reports, 'a-');
  });

  it('records in each member exactly the cost admitted with batching on, many composite requests per script call', async () => {
    await runComposite('atomic', 'warm-b-', true);
    server.cli('CONFIG', 'RESETSTAT');
    const reports = await runComposite('atomic', 'b-', true);
    // 250 requests per worker fired at once go in batches of up to 64: a handful of calls each.
    expect(evalshaCalls()).toBeLessThan((USERS * PER_USER) / 4);
    await expectExact(reports, 'b-');
  });

  it('catches a batch deciding its composite calls from one snapshot of its keys (the snapshot-batch mutant)', async () => {
    const reports = await runComposite('atomic', 's-', true, 'snapshot-batch');
    const admitted = admittedByUser(reports);
    const over = [...admitted.values()].filter((cost) => cost > 8);
    expect(over.length).toBeGreaterThan(0);
  });

  it('catches the parallel-union mutant counting denied requests in a member', async () => {
    const reports = await runComposite('parallel-union', 'm-', false);
    const admitted = admittedByUser(reports);
    let leaked = 0;
    for (let u = 0; u < USERS; u++) {
      const user = `m-user-${u}`;
      const [fixed] = await counted(user);
      leaked += fixed - (admitted.get(user) ?? 0);
    }
    expect(leaked).toBeGreaterThan(0);
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(redis)).toEqual([]);
  });
});
