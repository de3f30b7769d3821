/**
 * A pool of load worker processes (./worker.mjs) for the multi-process tests: each opens the file with
 * its own connection, so the concurrency is real (8 processes, 8 connections, one file). `run` sets
 * every worker up, waits until all are ready (a barrier), then releases them together and collects
 * their reports. Workers load the built package (dist), so the tests run after `pnpm build`. They run
 * on the runtime running the tests: Node under Vitest, Bun under `bun test`.
 */
import { WorkerPool as Pool } from '@ratekeeper/store-contract';

export interface MemberSpec {
  readonly algorithm: string;
  readonly limit?: number;
  readonly windowMs?: number;
  readonly capacity?: number;
  readonly refillPerSecond?: number;
}

export interface WorkerSetup {
  readonly path: string;
  readonly members: readonly MemberSpec[];
  /** [key, cost] pairs, made back to back on 'go'. */
  readonly requests: readonly (readonly [string, number])[];
  /** The build to load (a mutant build's URL); default: dist. */
  readonly dist?: string;
  /** Reset the first request's key before 'ready' (so the burst starts on state that exists). */
  readonly resetFirst?: boolean;
}

export interface WorkerReport {
  readonly admitted: number;
  /** Decisions that carry a `failure` mark. */
  readonly failed: number;
  /** Reasons of the store's 'failure' events. */
  readonly failures: readonly string[];
  readonly driver: string;
}

/** WorkerPool: `size` workers of ./worker.mjs (@ratekeeper/store-contract's WorkerPool). */
export class WorkerPool extends Pool<WorkerSetup, WorkerReport> {
  constructor(size: number) {
    super(new URL('./worker.mjs', import.meta.url), size);
  }
}
