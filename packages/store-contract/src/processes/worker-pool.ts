/**
 * WorkerPool: the load worker processes of the stores' multi-process tests (8 processes bursting on
 * one key, each with its own client, so the concurrency is real). A store package's worker script
 * answers three messages: `setup` (its WorkerSetup: connect, build the store, warm up) with `ready`,
 * `go` (make the requests) with `done` and its report, and `exit`; any failure answers `error`. `run`
 * sets every worker up, waits until all are ready (a barrier), then releases them together and
 * collects their reports. A package may send its workers messages of its own through `ask`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

type Message = { readonly type: string; readonly message?: string };

export class WorkerPool<Setup extends object, Report> {
  readonly #children: ChildProcess[];

  /** The worker script (a path or a file URL), forked `size` times on the runtime running the tests. */
  constructor(worker: string | URL, size: number) {
    const path = worker instanceof URL ? fileURLToPath(worker) : worker;
    this.#children = Array.from({ length: size }, () => fork(path, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }

  get size(): number {
    return this.#children.length;
  }

  /**
   * run sets up worker first + i with setups[i] (fewer setups: fewer workers), then starts all at once;
   * `beforeGo` runs once every worker is ready, before any starts (to stop a server, or start a killer).
   */
  async run(setups: readonly Setup[], first = 0, beforeGo?: () => unknown): Promise<Report[]> {
    const workers = setups.map((_, i) => first + i);
    await Promise.all(workers.map((worker, i) => this.ask(worker, { type: 'setup', ...setups[i] }, 'ready')));
    await beforeGo?.();
    return (await Promise.all(workers.map((worker) => this.ask(worker, { type: 'go' }, 'done')))) as unknown as Report[];
  }

  /** ask sends worker `index` a message and answers its reply of type `want` (rejected on `error` or any other type). */
  ask(index: number, message: object, want: string): Promise<Message> {
    const child = this.#children[index];
    if (child === undefined) return Promise.reject(new RangeError(`WorkerPool: no worker ${index} of ${this.#children.length}`));
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
export function totalAdmitted(reports: readonly { readonly admitted: number }[]): number {
  return reports.reduce((sum, r) => sum + r.admitted, 0);
}
