/**
 * The burst: exactness under real concurrency, for every store. `workers` workers (8 by default:
 * processes, each with its own client and a store of DEFAULT options; whatever the store's unit of
 * concurrency is) each fire `requests` consumes of cost 1 (2,000) all at once, after a barrier, on ONE
 * key with a limit of LIMIT (500): exactly LIMIT are admitted, every run, with no failure reported and
 * no decision made by a failure policy, for every algorithm, for concurrency leases (taken and held)
 * when the store claims them, and for a composite of a token bucket (LIMIT) and a fixed window (700)
 * when it claims composites (the window then records exactly the LIMIT admitted). Runs alternate
 * between a key no worker has used and one each worker reset before the barrier (a row that exists).
 * Windows of 10^12 ms and a refill of one token per 10^6 s keep a run from crossing a window or minting
 * a token, so exactly LIMIT is the right answer on any store's clock.
 *
 * Each mutant the store names (a store that is not atomic: a read and a write apart, no lock, a
 * snapshot per batch) must over-admit in the same harness within `tries` bursts, which shows the
 * harness is concurrent enough to catch it.
 *
 * The store gives `run`, which makes one burst its own way (./worker-pool.ts's WorkerPool is the usual
 * means) and answers each worker's report.
 */
import { expect } from 'vitest';
import { type Check, check } from '../check.js';
import type { Capability } from '../capabilities.js';
import { failuresOf } from './worker-reports.js';

export const LIMIT = 500;
const HUGE_WINDOW_MS = 1e12;

/** BurstMember: one limiter of a burst, as a worker builds it on its store. */
export type BurstMember =
  | { readonly algorithm: 'token-bucket'; readonly capacity: number; readonly refillPerSecond: number }
  | { readonly algorithm: 'sliding-window' | 'fixed-window' | 'first-request-window' | 'sliding-log'; readonly limit: number; readonly windowMs: number }
  | { readonly algorithm: 'concurrency'; readonly limit: number };

/** Burst: what every worker of one burst does. */
export interface Burst {
  /** The one key every request is for (new for every burst). */
  readonly key: string;
  /** The limiter: one member, or a composite of several. */
  readonly members: readonly BurstMember[];
  readonly workers: number;
  /** Requests per worker, each a consume of cost 1 of `key`, all made at once after the barrier. */
  readonly requests: number;
  /** Each worker resets `key` before the barrier (the burst starts on state that exists). */
  readonly resetFirst: boolean;
}

/** BurstReport: one worker's count. */
export interface BurstReport {
  readonly admitted: number;
  /** Decisions that carry a `failure` mark (made by the failure policy, not by the store). */
  readonly failed: number;
  /** The reasons of the store's 'failure' events during the burst. */
  readonly failures: readonly string[];
}

export interface BurstOptions<Mutant extends string = string> {
  /** run makes one burst with the package's own build, or `mutant`'s, and answers every worker's report. */
  readonly run: (burst: Burst, mutant?: Mutant) => Promise<readonly BurstReport[]>;
  /** Workers per burst (default 8). */
  readonly workers?: number;
  /** Requests per worker (default 2,000). */
  readonly requests?: number;
  /** Bursts per clause (default RATEKEEPER_EXACT_RUNS, else 2). */
  readonly runs?: number;
  /** The store's non-atomic mutants the harness must catch over-admitting, each as [what it does wrong, its name]. */
  readonly mutants?: readonly (readonly [string, Mutant])[];
  /** Bursts a mutant gets to over-admit in (default 3). */
  readonly tries?: number;
  /** Per-clause timeout in milliseconds (default 300,000). */
  readonly timeoutMs?: number;
}

export const BURST_MEMBERS: readonly BurstMember[] = [
  { algorithm: 'token-bucket', capacity: LIMIT, refillPerSecond: 1e-6 },
  { algorithm: 'sliding-window', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
  { algorithm: 'fixed-window', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
  { algorithm: 'sliding-log', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
  { algorithm: 'first-request-window', limit: LIMIT, windowMs: HUGE_WINDOW_MS },
];
/** Leases: LIMIT taken and held (nothing releases them during the burst). */
const LEASES: BurstMember = { algorithm: 'concurrency', limit: LIMIT };
/** The token bucket (LIMIT) binds; the fixed window (700) must record exactly the LIMIT admitted. */
const COMPOSITE: readonly BurstMember[] = [BURST_MEMBERS[0] as BurstMember, { algorithm: 'fixed-window', limit: 700, windowMs: HUGE_WINDOW_MS }];

type Claims = Readonly<Record<Capability, boolean>>;

/** burstChecks lists the burst's clauses for a store with these claims (see above). */
export function burstChecks<Mutant extends string>(options: BurstOptions<Mutant>, claims: Claims): Check[] {
  const workers = options.workers ?? 8;
  const requests = options.requests ?? 2000;
  const runs = options.runs ?? Number(process.env['RATEKEEPER_EXACT_RUNS'] ?? 2);
  const timeoutMs = options.timeoutMs ?? 300_000;
  const shape = `${workers} workers × ${requests} requests in flight on one key`;
  const burst = (key: string, members: readonly BurstMember[], resetFirst: boolean, mutant?: Mutant) => options.run({ key, members, workers, requests, resetFirst }, mutant);

  const exact = (title: string, members: readonly BurstMember[]): Check => ({
    ...check(`burst: ${title} admits exactly ${LIMIT} of ${shape}, run after run`, async (c) => {
      for (let run = 0; run < runs; run++) {
        const reports = await burst(`burst-${c.fresh()}`, members, run % 2 === 1);
        expect(reports.length, 'one report per worker').toBe(workers);
        expect(failuresOf(reports), `run ${run + 1}: the store reported failures`).toEqual([]);
        expect(
          reports.map((r) => r.failed),
          `run ${run + 1}: decisions made by the failure policy, per worker`,
        ).toEqual(Array(workers).fill(0));
        expect(totalOf(reports), `run ${run + 1}: admitted`).toBe(LIMIT);
      }
    }),
    timeoutMs,
  });

  const checks = BURST_MEMBERS.map((m) => exact(m.algorithm, [m]));
  if (claims.concurrency) checks.push(exact('concurrency (leases taken and held)', [LEASES]));
  if (claims.composite) checks.push(exact('a composite of a token bucket (500) and a fixed window (700)', COMPOSITE));
  const tries = options.tries ?? 3;
  for (const [what, mutant] of options.mutants ?? []) {
    checks.push({
      ...check(`burst: catches ${what} (mutant ${mutant}) over-admitting within ${tries} bursts`, async (c) => {
        const totals: number[] = [];
        for (let i = 0; i < tries && totals.every((t) => t <= LIMIT); i++)
          totals.push(totalOf(await burst(`burst-${c.fresh()}`, [BURST_MEMBERS[2] as BurstMember], i % 2 === 1, mutant)));
        expect(Math.max(...totals), `admitted per burst: ${totals.join(', ')}`).toBeGreaterThan(LIMIT);
      }),
      timeoutMs,
    });
  }
  return checks;
}

function totalOf(reports: readonly BurstReport[]): number {
  return reports.reduce((sum, r) => sum + r.admitted, 0);
}
