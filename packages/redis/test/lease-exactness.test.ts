/**
 * Lease mode across processes, in the 8-process harness of exactness.test.ts: 8 worker processes, each
 * with its own connection, a RedisStore on default options and the token bucket wrapped in a
 * LeasedLimiter of k units, fire their requests at once on one key; then each closes its limiter
 * (every unit it still holds goes back) and reports. The test then reads the bucket in Redis.
 *
 * What must hold, exactly:
 *   - admitted ≤ limit: a unit is spent only after it was taken from the bucket;
 *   - the ledger: after the closes, the bucket's tokens = limit − admitted (every unit taken was spent
 *     or given back; none lost, none spent twice), so the limit is exactly what was admitted plus what
 *     is left;
 *   - each process held at most k units out of the bucket at any decision, so the under-admission
 *     (what the bucket could still have admitted but a process held) is at most N·k = 8·k.
 * Run A exhausts the bucket (8 × 2,000 requests, limit 500, k = 10); run B asks less than the limit
 * (8 × 60 = 480 requests, k = 25), so the units held at the end are the measured under-admission.
 * Two mutants run in the same harness: a process that spends one unit beyond each take (caught
 * over-admitting) and one that never gives units back (caught by the ledger).
 *
 * A refill of one token per 10^6 s keeps a run from minting a token, so the counts are exact.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { closeAll, ioredis } from './support/clients.js';
import type { Spec } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { report } from './support/report.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';
import { WorkerPool, type WorkerReport, type WorkerSetup, totalAdmitted } from './support/workers.js';

const WORKERS = 8;
const LIMIT = 500;
const SPEC: Spec = { algorithm: 'token-bucket', capacity: LIMIT, refillPerSecond: 1e-6 };

let server: RedisServer;
let pool: WorkerPool;
let runs = 0;

beforeAll(async () => {
  server = await startServer();
  server.prioritise();
  pool = new WorkerPool(WORKERS);
});

afterAll(async () => {
  pool?.close();
  await closeAll();
  await server?.stop();
});

interface Run {
  readonly key: string;
  readonly reports: WorkerReport[];
  /** The bucket's whole tokens in Redis after every worker closed its limiter. */
  readonly tokens: number;
}

async function run(store: WorkerSetup['store'], client: WorkerSetup['client'], perWorker: number, units: number): Promise<Run> {
  const key = `lease-${runs++}`;
  const requests = Array.from({ length: perWorker }, () => [key, 1] as const);
  const setup = { port: server.port, client, store, prefix: 'rk:', members: [SPEC], skewMs: 0, requests, lease: { units } };
  const reports = await pool.run(Array.from({ length: WORKERS }, () => setup));
  // peek answers remaining = tokens − 1 while one token is left, and 0 when none is.
  const reader = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1e-6, store: new RedisStore({ client: ioredis(server.port), timeoutMs: 5000 }) });
  const peek = await reader.peek(key);
  return { key, reports, tokens: peek.allowed ? peek.remaining + 1 : 0 };
}

describeRedis(`lease mode: 8 processes on one key with a limit of ${LIMIT}`, () => {
  for (const client of ['ioredis', 'node-redis'] as const) {
    it(`admits at most ${LIMIT} and leaves exactly ${LIMIT} − admitted after the closes, 8 × 2,000 requests at k = 10, through ${client}`, async () => {
      const { reports, tokens } = await run('redis', client, 2000, 10);
      const admitted = totalAdmitted(reports);
      expect(reports.flatMap((r) => r.failures)).toEqual([]);
      expect(reports.map((r) => r.failed)).toEqual(Array(WORKERS).fill(0));
      expect(admitted).toBeLessThanOrEqual(LIMIT);
      expect(tokens).toBe(LIMIT - admitted);
      expect(LIMIT - admitted).toBeLessThanOrEqual(WORKERS * 10);
      for (const r of reports) expect(r.maxHeld).toBeLessThanOrEqual(10);
      const leasing = reports.map((r) => r.leasing);
      report(
        `lease A (${client}): admitted ${admitted} of ${LIMIT}; takes ${leasing.reduce((s, l) => s + (l?.refills ?? 0), 0)}; max held per process ${Math.max(...reports.map((r) => r.maxHeld))}`,
      );
    });
  }

  it('under-admits at most N·k while the processes hold units: 8 × 60 requests at k = 25, and gives every unit back', async () => {
    const { reports, tokens } = await run('redis', 'ioredis', 60, 25);
    const admitted = totalAdmitted(reports);
    const demand = WORKERS * 60;
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    expect(admitted).toBeLessThanOrEqual(demand);
    expect(demand - admitted).toBeLessThanOrEqual(WORKERS * 25);
    for (const r of reports) expect(r.maxHeld).toBeLessThanOrEqual(25);
    // Units were still held at the end (the prefetches: the forgetful mutant below is caught on this
    // run), and every one came back.
    const returned = reports.reduce((s, r) => s + (r.leasing?.returned ?? 0), 0);
    expect(tokens).toBe(LIMIT - admitted);
    report(
      `lease B: admitted ${admitted} of ${demand} asked (limit ${LIMIT}); under-admission ${demand - admitted} ≤ N·k = ${WORKERS * 25}; max held ${Math.max(...reports.map((r) => r.maxHeld))}; returned ${returned}`,
    );
  });

  it('catches a process spending beyond its lease (the overspending mutant over-admits)', async () => {
    const { reports } = await run('overspending-lease', 'ioredis', 2000, 10);
    expect(totalAdmitted(reports)).toBeGreaterThan(LIMIT);
  });

  it('catches a process that forgets to give units back (the forgetful mutant breaks the ledger)', async () => {
    const { reports, tokens } = await run('forgetful-lease', 'ioredis', 60, 25);
    expect(tokens).toBeLessThan(LIMIT - totalAdmitted(reports));
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(ioredis(server.port))).toEqual([]);
  });
});
