/**
 * Exactness across processes: 8 worker processes, each with its own connection and a RedisStore with
 * its DEFAULT options (timeoutMs 50, onFailure 'fallback'), fire 2,000 requests at once (after a
 * barrier) on one key with a limit of 500. Redis takes far longer than 50 ms to work through 16,000
 * scripts, yet it is answering a queue, not failing: exactly 500 must be admitted, every run, for
 * every algorithm and through both clients, with no failure and no fallback decision of any kind.
 * Two mutants run in the same harness and must over-admit: the store as it was before issue 7 (each
 * call timed out 50 ms after it was issued, then decided by the fallback while Redis still ran it),
 * and a GET-then-SET store, which shows the harness is concurrent enough to catch a non-atomic store.
 *
 * Windows of 10^12 ms and a refill of one token per 10^6 s keep a run (about a second of server time)
 * from crossing a window boundary or minting a token, so exactly 500 is the right answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeAll, ioredis } from './support/clients.js';
import type { Spec } from './support/histories.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';
import { WorkerPool, type WorkerSetup, totalAdmitted } from './support/workers.js';

const WORKERS = 8;
const REQUESTS = 2000;
const LIMIT = 500;
const HUGE_WINDOW_MS = 1e12;
/** RATEKEEPER_EXACT_RUNS repeats each run (nightly: 20). */
const RUNS = Number(process.env['RATEKEEPER_EXACT_RUNS'] ?? 2);

const SPECS: readonly Spec[] = [
  { algorithm: 'token-bucket', capacity: LIMIT, refillPerSecond: 1e-6 },
  { algorithm: 'sliding-window', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
  { algorithm: 'fixed-window', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
  { algorithm: 'sliding-log', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
];

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

function oneKey(spec: Spec | readonly Spec[], store: WorkerSetup['store'], client: WorkerSetup['client'], batch?: boolean): WorkerSetup[] {
  const key = `exact-${runs++}`;
  const requests = Array.from({ length: REQUESTS }, () => [key, 1] as const);
  const options = batch === undefined ? {} : { batch };
  const members = Array.isArray(spec) ? spec : [spec];
  return Array.from({ length: WORKERS }, () => ({ port: server.port, client, store, prefix: 'rk:', members, skewMs: 0, requests, ...options }));
}

describeRedis('8 processes × 2,000 concurrent requests on one key with a limit of 500', () => {
  for (const spec of SPECS) {
    for (const client of ['ioredis', 'node-redis'] as const) {
      it(`admits exactly 500 by ${spec.algorithm} through ${client}, run after run`, async () => {
        for (let run = 0; run < RUNS; run++) {
          const reports = await pool.run(oneKey(spec, 'redis', client));
          expect(reports.flatMap((r) => r.failures)).toEqual([]);
          expect(reports.map((r) => r.failed)).toEqual(Array(WORKERS).fill(0));
          expect(totalAdmitted(reports)).toBe(LIMIT);
        }
      });
    }
  }

  // A composite batches as one call of two policies per request: the token bucket (500) binds, and the
  // fixed window (limit 700) must record exactly the 500 admitted, all or nothing.
  for (const client of ['ioredis', 'node-redis'] as const) {
    it(`admits exactly 500 through a composite of a token bucket and a fixed window, batched, through ${client}`, async () => {
      const members: Spec[] = [SPECS[0] as Spec, { algorithm: 'fixed-window', limit: 700, windowMs: HUGE_WINDOW_MS }];
      const reports = await pool.run(oneKey(members, 'redis', client));
      expect(reports.flatMap((r) => r.failures)).toEqual([]);
      expect(reports.map((r) => r.failed)).toEqual(Array(WORKERS).fill(0));
      expect(totalAdmitted(reports)).toBe(LIMIT);
    });
  }

  // Unbatched, the burst is 16,000 scripts queued in Redis: the long queue issue 7 was about.
  for (const client of ['ioredis', 'node-redis'] as const) {
    it(`admits exactly 500 with batching off, 16,000 single scripts in Redis's queue, through ${client}`, async () => {
      const reports = await pool.run(oneKey(SPECS[0] as Spec, 'redis', client, false));
      expect(reports.flatMap((r) => r.failures)).toEqual([]);
      expect(totalAdmitted(reports)).toBe(LIMIT);
    });
  }

  it('catches the issue-time-timeout mutant sending the burst to its fallback in the same harness', async () => {
    const reports = await pool.run(oneKey(SPECS[0] as Spec, 'issue-time', 'ioredis'));
    expect(reports.reduce((sum, r) => sum + r.failed, 0)).toBeGreaterThan(0);
    expect(totalAdmitted(reports)).toBeGreaterThan(LIMIT);
  });

  it('catches the GET-then-SET mutant over-admitting in the same harness', async () => {
    const reports = await pool.run(oneKey(SPECS[2] as Spec, 'get-then-set', 'ioredis'));
    expect(totalAdmitted(reports)).toBeGreaterThan(LIMIT);
  });

  it('catches a batch that decides every call from one snapshot (the non-atomic batch mutant)', async () => {
    const reports = await pool.run(oneKey(SPECS[0] as Spec, 'snapshot-batch', 'ioredis'));
    expect(totalAdmitted(reports)).toBeGreaterThan(LIMIT);
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(ioredis(server.port))).toEqual([]);
  });
});
