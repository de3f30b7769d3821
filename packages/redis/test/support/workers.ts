/**
 * A pool of load worker processes (./worker.mjs) for the multi-process tests: each has its own
 * connection to Redis, so concurrency is real (8 sockets, 8 event loops), not interleaved promises.
 * `run` sets every worker up, waits until all are ready (a barrier), then releases them together and
 * collects their reports. Workers load the built package (dist), so the tests run after `pnpm build`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Spec } from './histories.js';

export interface WorkerSetup {
  readonly port: number;
  readonly client: 'ioredis' | 'node-redis';
  /** 'redis': RedisStore with default options; the others are mutants (test/mutants). */
  readonly store: 'redis' | 'get-then-set' | 'client-time' | 'snapshot-batch' | 'issue-time' | 'overspending-lease' | 'forgetful-lease';
  readonly prefix: string;
  readonly members: readonly Spec[];
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

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));

type Message = { type: 'ready' } | ({ type: 'done' } & WorkerReport) | { type: 'peers'; peers: number } | { type: 'error'; message: string };

export class WorkerPool {
  readonly #children: ChildProcess[];

  constructor(size: number) {
    this.#children = Array.from({ length: size }, () => fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }

  get size(): number {
    return this.#children.length;
  }

  /**
   * run sets up worker first + i with setups[i] (fewer setups: fewer workers), then starts all at once;
   * `beforeGo` runs once every worker is ready, before any starts (to stop a server, say).
   */
  async run(setups: readonly WorkerSetup[], first = 0, beforeGo?: () => Promise<void>): Promise<WorkerReport[]> {
    const children = this.#children.slice(first, first + setups.length);
    await Promise.all(children.map((child, i) => this.#ask(child, { type: 'setup', ...setups[i] }, 'ready')));
    await beforeGo?.();
    const reports = children.map((child) => this.#ask(child, { type: 'go' }, 'done'));
    return (await Promise.all(reports)) as unknown as WorkerReport[];
  }

  /**
   * coldBurst starts worker first + i on setups[i] the moment it can (no barrier: each connects, builds
   * its store and fires its requests at once, as a freshly started process meets traffic already
   * arriving) and collects the reports.
   */
  async coldBurst(setups: readonly WorkerSetup[], first = 0): Promise<WorkerReport[]> {
    const children = this.#children.slice(first, first + setups.length);
    return (await Promise.all(children.map((child, i) => this.#ask(child, { type: 'cold-burst', ...setups[i] }, 'done')))) as unknown as WorkerReport[];
  }

  /** peers asks every worker how many peers its store last counted (RedisStore.peers). */
  async peers(): Promise<number[]> {
    const replies = await Promise.all(this.#children.map((child) => this.#ask(child, { type: 'peers' }, 'peers')));
    return replies.map((reply) => (reply as { peers: number }).peers);
  }

  #ask(child: ChildProcess, message: object, want: Message['type']): Promise<Message> {
    return new Promise((resolve, reject) => {
      const onMessage = (reply: Message) => {
        child.off('message', onMessage);
        if (reply.type === 'error') reject(new Error(`worker failed: ${reply.message}`));
        else if (reply.type !== want) reject(new Error(`worker answered ${reply.type}, expected ${want}`));
        else resolve(reply);
      };
      child.on('message', onMessage);
      child.send(message);
    });
  }

  close(): void {
    for (const child of this.#children) {
      if (child.connected) child.send({ type: 'exit' });
      setTimeout(() => child.kill('SIGKILL'), 2000).unref();
    }
  }
}

/** total adds the workers' admitted counts. */
export function totalAdmitted(reports: readonly WorkerReport[]): number {
  return reports.reduce((sum, r) => sum + r.admitted, 0);
}
