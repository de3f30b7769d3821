/**
 * A pool of load worker processes (./worker.mjs) for the multi-process tests: each has its own
 * connection to Redis, so concurrency is real (8 sockets, 8 event loops), not interleaved promises.
 * `run` sets every worker up, waits until all are ready (a barrier), then releases them together and
 * collects their reports. Workers load the built package (dist), so the tests run after `pnpm build`.
 */
import { type BurstMember, WorkerPool as Pool } from '@ratekeeper/store-contract';
import type { Spec } from './histories.js';

export { totalAdmitted } from '@ratekeeper/store-contract';

export interface WorkerSetup {
  readonly port: number;
  readonly client: 'ioredis' | 'node-redis';
  /** 'redis': RedisStore with default options; the others are mutants (test/mutants). */
  readonly store: 'redis' | 'get-then-set' | 'client-time' | 'snapshot-batch' | 'issue-time' | 'overspending-lease' | 'forgetful-lease';
  readonly prefix: string;
  /** The limiter: one member, or a composite (concurrency leases too: the store contract's burst). */
  readonly members: readonly (Spec | BurstMember)[];
  /** Reset the first request's key before 'ready' (so the burst starts on state that exists). */
  readonly resetFirst?: boolean;
  readonly composite?: 'atomic' | 'parallel-union';
  readonly skewMs: number;
  /** The store's timeoutMs, batch and fallbackDivisor options; default: the store's defaults. */
  readonly timeoutMs?: number;
  readonly batch?: boolean;
  readonly fallbackDivisor?: number | 'peers';
  /** The store's first call, outside the count: a consume on the worker's own key (default) or a peek on another. */
  readonly warm?: 'consume' | 'peek';
  /** A busy process (see worker.mjs): CPU burnt per admitted request, and in slices per turn of the loop. */
  readonly busy?: { readonly handlerMs?: number; readonly sliceMs?: number };
  /** No reply arrives until this many ms after the store's first command (Redis itself is healthy). */
  readonly slowStartMs?: number;
  /** The @ratekeeper/redis build to load (a mutant build, ./mutant-builds.ts); default: dist. */
  readonly dist?: string;
  /** Lease mode: the single member wrapped in a LeasedLimiter with these options (closed after the run). */
  readonly lease?: { readonly units: number; readonly ttlMs?: number };
  /** [key, cost] pairs, fired all at once on 'go'. */
  readonly requests: readonly (readonly [string, number])[];
}

export interface WorkerReport {
  readonly admitted: number;
  readonly admittedCost: Readonly<Record<string, number>>;
  /** Decisions that carry a `failure` mark. */
  readonly failed: number;
  /** Reasons of the store's 'failure' events. */
  readonly failures: readonly string[];
  /** Lease mode: the most units the process held out of one requested key's bucket at a decision (0 otherwise). */
  readonly maxHeld: number;
  /** The longest any one decision took, from its call to its answer, in ms. */
  readonly slowestMs: number;
  /** The process's own lateness during the burst, in ms (the sum of a 10 ms timer's delays). */
  readonly lateMs: number;
  /** Lease mode: the store's lease counters after the limiter was closed. */
  readonly leasing: { readonly refills: number; readonly units: number; readonly returned: number } | null;
}

/** WorkerPool: `size` workers of ./worker.mjs (@ratekeeper/store-contract's WorkerPool), with the cold burst and the peer count. */
export class WorkerPool extends Pool<WorkerSetup, WorkerReport> {
  constructor(size: number) {
    super(new URL('./worker.mjs', import.meta.url), size);
  }

  /**
   * coldBurst starts worker first + i on setups[i] the moment it can (no barrier: each connects, builds
   * its store and fires its requests at once, as a freshly started process meets traffic already
   * arriving) and collects the reports.
   */
  async coldBurst(setups: readonly WorkerSetup[], first = 0): Promise<WorkerReport[]> {
    return (await Promise.all(setups.map((setup, i) => this.ask(first + i, { type: 'cold-burst', ...setup }, 'done')))) as unknown as WorkerReport[];
  }

  /** peers asks every worker how many peers its store last counted (RedisStore.peers). */
  async peers(): Promise<number[]> {
    const replies = await Promise.all(Array.from({ length: this.size }, (_, i) => this.ask(i, { type: 'peers' }, 'peers')));
    return replies.map((reply) => (reply as unknown as { peers: number }).peers);
  }
}
