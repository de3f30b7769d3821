/**
 * A PostgreSQL server of the test's own, for the suites that stop, hang or restart one: a cluster in a
 * temporary directory (initdb, trust auth, superuser `root`, database `postgres`) served by the
 * `postgres` binary on a free port of 127.0.0.1, its socket in the same directory.
 *
 * PostgreSQL refuses to run as root: when the tests run as root (CI), initdb and the server run as
 * the `postgres` OS user (spawn's uid/gid) in a directory given to it. `hang` signals the postmaster and
 * every child of it (each backend makes itself a process group of its own), so the whole cluster stops
 * (SIGSTOP), not only the postmaster. Stops use PostgreSQL's own shutdown signals: SIGINT is a fast shutdown
 * (`pg_ctl stop -m fast`: every transaction rolled back, a checkpoint), SIGQUIT an immediate one
 * (`-m immediate`: the processes quit at once, and the next start recovers from the WAL).
 *
 * `hasServerBinaries` tells whether the machine has initdb and postgres (/usr/lib/postgresql/N/bin);
 * under CI=true their absence fails the suite, elsewhere the suite is skipped, loudly.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const ROOT = '/usr/lib/postgresql';
const BIN = (existsSync(ROOT) ? readdirSync(ROOT) : [])
  .filter((v) => /^\d+$/.test(v))
  .sort((a, b) => Number(b) - Number(a))
  .map((v) => join(ROOT, v, 'bin'))
  .find((bin) => existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres')));

export const hasServerBinaries = BIN !== undefined;
if (!hasServerBinaries && process.env['CI'] === 'true') throw new Error(`initdb and postgres are missing under ${ROOT}/*/bin; CI runs the stopped-server tests`);
if (!hasServerBinaries) console.warn(`SKIPPED: no initdb and postgres under ${ROOT}/*/bin for a private PostgreSQL server`);

/** owner is the OS user the server runs as: the caller, or `postgres` when the caller is root. */
function owner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** childrenOf lists the processes whose parent is `pid` (/proc/N/stat: the parent is the field after the state). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // Ended meanwhile.
    }
  }
  return children;
}

export type Shutdown = 'fast' | 'immediate';
const SHUTDOWN_SIGNAL: Record<Shutdown, NodeJS.Signals> = { fast: 'SIGINT', immediate: 'SIGQUIT' };

export class PrivateServer {
  readonly dir = mkdtempSync(join(tmpdir(), 'rk-postgres-'));
  readonly #as = owner();
  port = 0;
  #child: ChildProcess | undefined;

  /** The connection settings of a pg Pool (postgres.js takes `username` for `user`). */
  get config(): { host: string; port: number; user: string; database: string } {
    return { host: '127.0.0.1', port: this.port, user: 'root', database: 'postgres' };
  }

  /** start creates the cluster (once) and starts the server, resolving once it answers a query. */
  async start(): Promise<void> {
    const data = join(this.dir, 'data');
    const as = this.#as === undefined ? {} : this.#as;
    if (!existsSync(data)) {
      if (this.#as !== undefined) chownSync(this.dir, this.#as.uid, this.#as.gid);
      execFileSync(join(BIN as string, 'initdb'), ['-D', data, '-U', 'root', '--auth=trust', '-E', 'UTF8', '--no-sync'], { stdio: 'ignore', ...as });
    }
    if (this.port === 0) this.port = await freePort();
    const settings = ['listen_addresses=127.0.0.1', `port=${this.port}`, `unix_socket_directories=${this.dir}`, 'fsync=off', 'shared_buffers=16MB', 'max_connections=50'];
    this.#child = spawn(join(BIN as string, 'postgres'), ['-D', data, ...settings.flatMap((s) => ['-c', s])], { stdio: 'ignore', ...as });
    for (let i = 0; ; i++) {
      const client = new pg.Client(this.config);
      client.on('error', () => {});
      const up = await client.connect().then(
        () => client.query('SELECT 1').then(() => true),
        () => false,
      );
      await client.end().catch(() => undefined);
      if (up) return;
      if (i > 300 || this.#exited()) throw new Error('the private PostgreSQL server did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  #exited(): boolean {
    const child = this.#child;
    return child === undefined || child.exitCode !== null || child.signalCode !== null;
  }

  /** hang stops every process of the cluster (SIGSTOP); resume lets them go on (SIGCONT). */
  hang(): void {
    this.#group('SIGSTOP');
  }

  resume(): void {
    this.#group('SIGCONT');
  }

  /** group signals the postmaster, then each of its children (each backend is a process group of its own). */
  #group(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined || this.#exited()) return;
    process.kill(pid, signal);
    for (const child of childrenOf(pid)) {
      try {
        process.kill(child, signal);
      } catch {
        // Ended meanwhile.
      }
    }
  }

  /** shutdown asks the server to stop in `mode` and resolves once the postmaster has exited. */
  async shutdown(mode: Shutdown): Promise<void> {
    this.#child?.kill(SHUTDOWN_SIGNAL[mode]);
    await this.exited();
  }

  /** exited resolves once the server process has ended. */
  exited(): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exited()) return Promise.resolve();
    return new Promise((resolve) => (child as ChildProcess).once('exit', () => resolve()));
  }

  /** stop ends the server at once (its processes resumed first, should they be stopped) and removes its directory. */
  async stop(): Promise<void> {
    this.resume();
    await this.shutdown('immediate');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
