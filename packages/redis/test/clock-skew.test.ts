/**
 * Clock skew: two processes whose application clocks read 30 s ahead and 30 s behind share one key.
 * With server time (the default) the script reads Redis's TIME, so their clocks cannot matter: exactly
 * the limit is admitted, whether they race or take turns. The client-time mutant trusts each process's
 * clock; when the process that is behind spends the limit first, the one ahead finds a window it reads
 * as over and spends the limit again. The same harness must see it exceed the limit.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeAll, ioredis } from './support/clients.js';
import type { Spec } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';
import { WorkerPool, type WorkerSetup, totalAdmitted } from './support/workers.js';

const SKEW_MS = 30_000;
const REQUESTS = 2000;
const LIMIT = 500;
/** One minute: the two clocks, 60 s apart, always read different windows. */
const MINUTE: Spec = { algorithm: 'fixed-window', limit: LIMIT, windowMs: 60_000 };
const SPECS: readonly Spec[] = [
  { algorithm: 'token-bucket', capacity: LIMIT, refillPerSecond: 1e-6 },
  { algorithm: 'sliding-window', limit: LIMIT, windowMs: 1e12 },
  { algorithm: 'fixed-window', limit: LIMIT, windowMs: 1e12 },
  { algorithm: 'sliding-log', limit: LIMIT, windowMs: 1e12 },
];

let server: RedisServer;
let pool: WorkerPool;
let redis: Redis;
let runs = 0;

beforeAll(async () => {
  server = await startServer();
  pool = new WorkerPool(2);
  redis = ioredis(server.port);
});

afterAll(async () => {
  pool?.close();
  await closeAll();
  await server?.stop();
});

function skewed(spec: Spec, store: WorkerSetup['store'], key: string, skewMs: number): WorkerSetup {
  const requests = Array.from({ length: REQUESTS }, () => [key, 1] as const);
  return { port: server.port, client: 'ioredis', store, prefix: 'rk:', members: [spec], skewMs, requests };
}

async function serverMinute(): Promise<number> {
  const [seconds] = await redis.time();
  return Math.floor(Number(seconds) / 60);
}

/**
 * takeTurns runs the process that is behind, then the one ahead, on a fresh key. A run whose server
 * time crossed a minute boundary is void (a fixed window legitimately admits twice across one) and is
 * repeated; two runs of a second or so cannot both cross one.
 */
async function takeTurns(store: WorkerSetup['store']): Promise<number> {
  for (;;) {
    const key = `turns-${runs++}`;
    const before = await serverMinute();
    const behind = await pool.run([skewed(MINUTE, store, key, -SKEW_MS)], 0);
    const ahead = await pool.run([skewed(MINUTE, store, key, SKEW_MS)], 1);
    if ((await serverMinute()) === before) return totalAdmitted([...behind, ...ahead]);
  }
}

describeRedis('two processes with clocks 60 s apart on one key', () => {
  for (const spec of SPECS) {
    it(`admits exactly the limit by ${spec.algorithm} in server time when they race`, async () => {
      const key = `race-${runs++}`;
      const reports = await pool.run([skewed(spec, 'redis', key, -SKEW_MS), skewed(spec, 'redis', key, SKEW_MS)]);
      expect(reports.flatMap((r) => r.failures)).toEqual([]);
      expect(totalAdmitted(reports)).toBe(LIMIT);
    });
  }

  it('admits exactly the limit in server time when the process behind goes first', async () => {
    expect(await takeTurns('redis')).toBe(LIMIT);
  });

  it('catches the client-time mutant admitting twice the limit in the same turns', async () => {
    expect(await takeTurns('client-time')).toBe(2 * LIMIT);
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(redis)).toEqual([]);
  });
});
