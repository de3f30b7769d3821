/**
 * Exactness across processes: 8 worker processes, each with its own mysql2 pool and a MySqlStore of
 * DEFAULT options (server time, failure policy 'fallback', 1 s timeout), make 2,000 requests each at
 * once (after a barrier) on one key with a limit of 500: exactly 500 are admitted, every run, for
 * every algorithm, concurrency leases (500 taken and held) and a composite, with no failure and no fallback decision. A mutant build without
 * row locks (no lock before the read, no FOR UPDATE: lost updates between batches) runs in the same
 * harness and must over-admit, which shows the harness is concurrent enough to catch a store that is
 * not atomic.
 *
 * Windows of 10^12 ms and a refill of one token per 10^6 s keep a run from crossing a window boundary
 * or minting a token, so exactly 500 is the right answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MYSQL_URL, createPool, describeMySql, dropTable, table } from './support/db.js';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';
import { type MemberSpec, WorkerPool, totalAdmitted } from './support/workers.js';
import { failuresOf } from '@ratekeeper/store-contract';

const WORKERS = 8;
const REQUESTS = 2000;
const LIMIT = 500;
const HUGE_WINDOW_MS = 1e12;
/** RATEKEEPER_EXACT_RUNS repeats each run (nightly: 20). */
const RUNS = Number(process.env['RATEKEEPER_EXACT_RUNS'] ?? 2);

const SPECS: readonly MemberSpec[] = [
  { algorithm: 'token-bucket', capacity: LIMIT, refillPerSecond: 1e-6 },
  { algorithm: 'sliding-window', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
  { algorithm: 'fixed-window', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
  { algorithm: 'sliding-log', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
  { algorithm: 'concurrency', limit: LIMIT },
];
// The token bucket (500) binds; the fixed window (700) must record exactly the 500 admitted.
const COMPOSITE: readonly MemberSpec[] = [SPECS[0] as MemberSpec, { algorithm: 'fixed-window', limit: 700, windowMs: HUGE_WINDOW_MS }];

const admin = createPool(2);
const TABLE = table('burst');
let pool: WorkerPool;
let runs = 0;

beforeAll(() => {
  pool = new WorkerPool(WORKERS);
});

afterAll(async () => {
  pool?.close();
  await dropTable(admin, TABLE).catch(() => undefined);
  await admin.end();
});

function burst(members: readonly MemberSpec[], dist?: string) {
  const key = `exact-${process.pid}-${runs++}`;
  const requests = Array.from({ length: REQUESTS }, () => [key, 1] as const);
  return pool.run(Array.from({ length: WORKERS }, () => ({ url: MYSQL_URL, table: TABLE, members, requests, ...(dist === undefined ? {} : { dist }) })));
}

describeMySql('8 processes × 2,000 requests on one key of one table with a limit of 500', () => {
  for (const spec of SPECS) {
    it(`admits exactly 500 by ${spec.algorithm}, run after run`, async () => {
      for (let run = 0; run < RUNS; run++) {
        const reports = await burst([spec]);
        expect(failuresOf(reports)).toEqual([]);
        expect(reports.map((r) => r.failed)).toEqual(Array(WORKERS).fill(0));
        expect(totalAdmitted(reports)).toBe(LIMIT);
      }
    });
  }

  it('admits exactly 500 through a composite of a token bucket and a fixed window, run after run', async () => {
    for (let run = 0; run < RUNS; run++) {
      const reports = await burst(COMPOSITE);
      expect(failuresOf(reports)).toEqual([]);
      expect(totalAdmitted(reports)).toBe(LIMIT);
    }
  });

  const mutants: readonly [string, MutantName][] = [['batches that read without row locks', 'no-lock']];
  for (const [name, mutant] of mutants) {
    it(`catches ${name} over-admitting in the same harness (within 3 runs)`, async () => {
      const totals: number[] = [];
      for (let run = 0; run < 3 && totals.every((t) => t <= LIMIT); run++) totals.push(totalAdmitted(await burst([SPECS[2] as MemberSpec], mutantBuild(mutant))));
      expect(Math.max(...totals)).toBeGreaterThan(LIMIT);
    });
  }
});
