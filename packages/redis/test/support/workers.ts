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
  /** The store's timeoutMs and batch options; default: the store's defaults. */
  readonly timeoutMs?: number;
  readonly batch?: boolean;
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
  /** Lease mode: the store's lease counters after the limiter was closed. */
  readonly leasing: { readonly refills: number; readonly units: number; readonly returned: number } | null;
}

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));

type Message = { type: 'ready' } | ({ type: 'done' } & WorkerReport) | { type: 'error'; message: string };

export class WorkerPool {
  readonly #children: ChildProcess[];

  constructor(size: number) {
    this.#children = Array.from({ length: size }, () => fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }

  get size(): number {
    return this.#children.length;
  }

  /** run sets up worker first + i with setups[i] (fewer setups: fewer workers), then starts all at once. */
  async run(setups: readonly WorkerSetup[], first = 0): Promise<WorkerReport[]> {
    const children = this.#children.slice(first, first + setups.length);
    await Promise.all(children.map((child, i) => this.#ask(child, { type: 'setup', ...setups[i] }, 'ready')));
    const reports = children.map((child) => this.#ask(child, { type: 'go' }, 'done'));
    return (await Promise.all(reports)) as unknown as WorkerReport[];
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
