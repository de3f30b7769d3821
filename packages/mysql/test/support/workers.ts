/**
 * A pool of load worker processes (./worker.mjs) for the multi-process tests: each opens its own
 * mysql2 pool, so the concurrency is real (8 processes, 8 pools, one table). `run` sets every worker
 * up, waits until all are ready (a barrier), then releases them together and collects their reports.
 * Workers load the built package (dist), so the tests run after `pnpm build`.
 */
import { WorkerPool as Pool } from '@ratekeeper/store-contract';

export { totalAdmitted } from '@ratekeeper/store-contract';

export interface MemberSpec {
  readonly algorithm: string;
  readonly limit?: number;
  readonly windowMs?: number;
  readonly capacity?: number;
  readonly refillPerSecond?: number;
}

export interface WorkerSetup {
  /** The server's URL (mysql://user@host:port/db). */
  readonly url: string;
  readonly table: string;
  readonly members: readonly MemberSpec[];
  /** [key, cost] pairs, made at once on 'go'. */
  readonly requests: readonly (readonly [string, number])[];
  /** The build to load (a mutant build's URL); default: dist. */
  readonly dist?: string;
  /** Reset the first request's key before 'ready' (so the burst starts on a row that exists). */
  readonly resetFirst?: boolean;
}

export interface WorkerReport {
  readonly admitted: number;
  /** Decisions that carry a `failure` mark. */
  readonly failed: number;
  /** Admissions that carry a `failure` mark (taken by the failure policy, not the database). */
  readonly admittedByFallback: number;
  /** Reasons of the store's 'failure' events. */
  readonly failures: readonly string[];
}

/** WorkerPool: `size` workers of ./worker.mjs (@ratekeeper/store-contract's WorkerPool). */
export class WorkerPool extends Pool<WorkerSetup, WorkerReport> {
  constructor(size: number) {
    super(new URL('./worker.mjs', import.meta.url), size);
  }
}
