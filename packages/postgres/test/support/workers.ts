/**
 * A pool of load worker processes (./worker.mjs) for the multi-process tests: each opens its own
 * client to the database, so the concurrency is real (8 processes, 8 pools, one table). `run` sets
 * every worker up, waits until all are ready (a barrier), then releases them together and collects
 * their reports. Workers load the built package (dist), so the tests run after `pnpm build`.
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
  readonly table: string;
  /** The client library: a pg Pool or a postgres.js sql. */
  readonly client: 'pg' | 'postgres';
  /** The connections' application_name (what a fault test kills by). */
  readonly appName?: string;
  /** The server's port (default 5432). */
  readonly port?: number;
  readonly members: readonly MemberSpec[];
  /** [key, cost] pairs, made back to back on 'go'. */
  readonly requests: readonly (readonly [string, number])[];
  /** Reset the first request's key before 'ready' (so its row exists when the burst starts). */
  readonly resetFirst?: boolean;
  /** The build to load (a mutant build's URL); default: dist. */
  readonly dist?: string;
  /** Put the limiter behind a BanLimiter of this banMs. */
  readonly banMs?: number;
}

export interface WorkerReport {
  readonly admitted: number;
  /** Decisions that carry a `failure` mark. */
  readonly failed: number;
  /** Reasons of the store's 'failure' events. */
  readonly failures: readonly string[];
  readonly batching: { readonly batches: number; readonly calls: number };
  /** The least and greatest retryAfterMs among the worker's denials (null without any). */
  readonly denied: { readonly least: number; readonly most: number } | null;
}

/** WorkerPool: `size` workers of ./worker.mjs (@ratekeeper/store-contract's WorkerPool). */
export class WorkerPool extends Pool<WorkerSetup, WorkerReport> {
  constructor(size: number) {
    super(new URL('./worker.mjs', import.meta.url), size);
  }
}
