/**
 * A fleet during a real outage: 8 processes share one limit of 500 through Redis, each store with its
 * DEFAULT options. Once each has counted its 8 peers (RedisStore.peers), Redis is stopped (SIGSTOP)
 * for 2 s, and until every process has its answers, and every process fires 2,000 requests at once on
 * one key. Every decision is then the fallback's, within the documented bound (timeoutMs after Redis's
 * last answer, plus the process's own lateness, which each worker measures), and each process's fallback enforces ⌊500 / 8⌋ = 62, so the fleet admits exactly
 * 8 × 62 = 496, never more than the limit. Once Redis is back, it has counted none of the 16,000
 * requests sent while it was stopped (their deadlines passed): the key still admits all 500.
 *
 * The mutant is the undivided fallback (`fallbackDivisor: 1`, each process enforcing the whole
 * limit): the same stall must admit 8 × 500.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_TIMEOUT_MS, RedisStore } from '../src/index.js';
import { closeAll, ioredis } from './support/clients.js';
import type { Spec } from './support/histories.js';
import { type RedisServer, startServer, waitFor } from './support/redis-server.js';
import { report } from './support/report.js';
import { describeRedis } from './support/requirements.js';
import { WorkerPool, type WorkerReport, type WorkerSetup, totalAdmitted } from './support/workers.js';

const WORKERS = 8;
const REQUESTS = 2000;
const LIMIT = 500;
const STALL_MS = 2000;
/** MARGIN_MS: room for the burst's own issuing, beyond timeoutMs and the lateness each process measured. */
const MARGIN_MS = 600;
const SPEC: Spec = { algorithm: 'fixed-window', limit: LIMIT, windowMs: 1e12 };

let server: RedisServer;
let pool: WorkerPool;
let runs = 0;

beforeAll(async () => {
  server = await startServer();
  pool = new WorkerPool(WORKERS);
});

afterAll(async () => {
  pool?.close();
  await closeAll();
  await server?.stop();
});

/** stalled sets the fleet up, waits until every store counts its 8 peers, and fires the burst while Redis is stopped. */
async function stalled(extra: Partial<WorkerSetup>): Promise<{ reports: WorkerReport[]; key: string; prefix: string }> {
  const key = `fleet-${runs}`;
  const prefix = `rk:fleet-${runs++}:`;
  const requests = Array.from({ length: REQUESTS }, () => [key, 1] as const);
  const setups = Array.from({ length: WORKERS }, () => ({
    port: server.port,
    client: 'ioredis' as const,
    store: 'redis' as const,
    prefix,
    members: [SPEC],
    skewMs: 0,
    requests,
    ...extra,
  }));
  let pausedAt = 0;
  const reports = await pool.run(setups, 0, async () => {
    if (extra.fallbackDivisor === undefined) await waitFor('every store to count its 8 peers', async () => (await pool.peers()).every((n) => n === WORKERS), 10_000);
    server.pause();
    pausedAt = performance.now();
  });
  // Resumed once every decision is made, and no sooner than STALL_MS: on a loaded machine the 'go'
  // reaches a worker late, and a timer alone could resume Redis before that worker's burst was sent.
  await waitFor('the end of the stall', () => performance.now() - pausedAt >= STALL_MS, STALL_MS + 1000);
  server.resume();
  return { reports, key, prefix };
}

describeRedis('8 processes, one limit of 500, Redis stopped for 2 s under a burst', () => {
  it('decides every request by the fallback within the bound, the fleet admitting 8 × ⌊500 / 8⌋ and Redis counting none', async () => {
    const { reports, key, prefix } = await stalled({});
    const slowest = Math.max(...reports.map((r) => r.slowestMs));
    report('fleet', 'admitted', totalAdmitted(reports), 'slowest decision ms', slowest.toFixed(0), 'most lateness ms', Math.max(...reports.map((r) => r.lateMs)).toFixed(0));
    expect(reports.map((r) => r.failed)).toEqual(Array(WORKERS).fill(REQUESTS));
    expect(reports.map((r) => r.admitted)).toEqual(Array(WORKERS).fill(Math.floor(LIMIT / WORKERS)));
    const overBound = reports.filter((r) => r.slowestMs >= DEFAULT_TIMEOUT_MS + r.lateMs + MARGIN_MS);
    expect(overBound, 'processes whose slowest decision exceeded timeoutMs + their own lateness + margin').toEqual([]);
    await waitFor('Redis to answer again', async () => (await ioredis(server.port).ping()) === 'PONG', STALL_MS + 5000);
    const after = new FixedWindowLimiter({ limit: LIMIT, windowMs: 1e12, store: new RedisStore({ client: ioredis(server.port), prefix }) });
    const decisions = await Promise.all(Array.from({ length: LIMIT + 1 }, () => after.consume(key)));
    expect(decisions.filter((d) => d.allowed && d.failure === undefined)).toHaveLength(LIMIT);
  });

  it('catches the undivided fallback admitting the whole limit in every process', async () => {
    const { reports } = await stalled({ fallbackDivisor: 1 });
    report('fleet', 'undivided mutant admitted', totalAdmitted(reports));
    expect(totalAdmitted(reports)).toBe(WORKERS * LIMIT);
  });
});
