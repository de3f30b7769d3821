/**
 * Exactness across processes: 8 worker processes, each with its own connection and a SqliteStore of
 * DEFAULT options on one file, make 2,000 requests each at once (after a barrier) on one key with a
 * limit of 500: exactly 500 are admitted, every run, for every algorithm and a composite, with no
 * failure and no fallback decision. Two mutant builds run in the same harness and must over-admit:
 * a deferred transaction (read first, lock at the first write: the losers of the race fail with
 * SQLITE_BUSY_SNAPSHOT and are decided by the fallback) and no transaction at all (the read and the
 * write of a decision apart: lost updates), which shows the harness is concurrent enough to catch a
 * store that is not atomic.
 *
 * Windows of 10^12 ms and a refill of one token per 10^6 s keep a run from crossing a window boundary
 * or minting a token, so exactly 500 is the right answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/files.js';
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
];
// The token bucket (500) binds; the fixed window (700) must record exactly the 500 admitted.
const COMPOSITE: readonly MemberSpec[] = [SPECS[0] as MemberSpec, { algorithm: 'fixed-window', limit: 700, windowMs: HUGE_WINDOW_MS }];

/** Each runtime's default driver: the suite runs on Node (Vitest) and on Bun (test/bun.test.ts). */
const DRIVER = typeof (globalThis as { Bun?: unknown }).Bun === 'undefined' ? 'better-sqlite3' : 'bun:sqlite';
const dir = tempDir();
let pool: WorkerPool;
let runs = 0;

beforeAll(() => {
  pool = new WorkerPool(WORKERS);
});

afterAll(() => {
  pool?.close();
  dir.remove();
});

function burst(members: readonly MemberSpec[], dist?: string) {
  const key = `exact-${runs++}`;
  const requests = Array.from({ length: REQUESTS }, () => [key, 1] as const);
  const path = dir.file();
  return pool.run(Array.from({ length: WORKERS }, () => ({ path, members, requests, ...(dist === undefined ? {} : { dist }) })));
}

describe('8 processes × 2,000 requests on one key of one file with a limit of 500', () => {
  for (const spec of SPECS) {
    it(`admits exactly 500 by ${spec.algorithm}, run after run`, async () => {
      for (let run = 0; run < RUNS; run++) {
        const reports = await burst([spec]);
        expect(failuresOf(reports)).toEqual([]);
        expect(reports.map((r) => r.failed)).toEqual(Array(WORKERS).fill(0));
        expect(totalAdmitted(reports)).toBe(LIMIT);
        expect(new Set(reports.map((r) => r.driver))).toEqual(new Set([DRIVER]));
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

  const mutants: readonly [string, MutantName][] = [
    ['a deferred transaction', 'deferred-transaction'],
    ['a read and a write outside one transaction', 'no-transaction'],
  ];
  for (const [name, mutant] of mutants) {
    it(`catches ${name} over-admitting in the same harness`, async () => {
      const reports = await burst([SPECS[2] as MemberSpec], mutantBuild(mutant));
      expect(totalAdmitted(reports)).toBeGreaterThan(LIMIT);
    });
  }
});
