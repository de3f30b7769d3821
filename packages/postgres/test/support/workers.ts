/**
 * A pool of load worker processes (./worker.mjs) for the multi-process tests: each opens its own
 * client to the database, so the concurrency is real (8 processes, 8 pools, one table). `run` sets
 * every worker up, waits until all are ready (a barrier), then releases them together and collects
 * their reports. Workers load the built package (dist), so the tests run after `pnpm build`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));

type Message = { type: 'ready' } | ({ type: 'done' } & WorkerReport) | { type: 'error'; message: string };

export class WorkerPool {
  readonly #children: ChildProcess[];

  constructor(size: number) {
    this.#children = Array.from({ length: size }, () => fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }

  /** run sets up worker i with setups[i], then starts all at once and collects their reports. */
  async run(setups: readonly WorkerSetup[]): Promise<WorkerReport[]> {
    const children = this.#children.slice(0, setups.length);
    await Promise.all(children.map((child, i) => this.#ask(child, { type: 'setup', ...setups[i] }, 'ready')));
    return (await Promise.all(children.map((child) => this.#ask(child, { type: 'go' }, 'done')))) as unknown as WorkerReport[];
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

/** totalAdmitted adds the workers' admitted counts. */
export function totalAdmitted(reports: readonly WorkerReport[]): number {
  return reports.reduce((sum, r) => sum + r.admitted, 0);
}
