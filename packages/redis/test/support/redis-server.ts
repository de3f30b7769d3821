/**
 * Real redis-server processes for the tests: started on free loopback ports with persistence off,
 * and stoppable, pausable (SIGSTOP/SIGCONT), killable (SIGKILL) and restartable on the same port, so
 * that fault tests act on a real server rather than a mock. Every process started here is killed when
 * the test process exits, whatever happens. Waits are bounded polls on the real process, never sleeps
 * standing in for limiter time.
 *
 * When redis-server is missing, `hasRedis` is false: suites skip (see ./requirements.ts), and CI fails.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

function onPath(binary: string): boolean {
  try {
    execFileSync(binary, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const hasRedis = onPath('redis-server') && onPath('redis-cli');

const running = new Set<number>();
process.on('exit', () => {
  for (const pid of running) kill(pid, 'SIGKILL');
});

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

type LauncherMessage = { type: 'spawned'; id: number; pid?: number; error?: string } | { type: 'exited'; pid: number };

/** The launcher (./launcher.mjs) forks the servers, so the test process never forks under load. */
let launcher: ChildProcess | undefined;
let nextId = 0;
const exits = new Map<number, () => void>();

function launcherProcess(): ChildProcess {
  if (launcher === undefined) {
    launcher = fork(fileURLToPath(new URL('./launcher.mjs', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    launcher.on('message', (message: LauncherMessage) => {
      if (message.type !== 'exited') return;
      running.delete(message.pid);
      exits.get(message.pid)?.();
      exits.delete(message.pid);
    });
    launcher.unref();
    launcher.channel?.unref();
  }
  return launcher;
}

function launch(args: readonly string[]): Promise<number> {
  const child = launcherProcess();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const onMessage = (message: LauncherMessage) => {
      if (message.type !== 'spawned' || message.id !== id) return;
      child.off('message', onMessage);
      if (message.pid === undefined) reject(new Error(`redis-server did not start: ${message.error}`));
      else {
        running.add(message.pid);
        resolve(message.pid);
      }
    };
    child.on('message', onMessage);
    child.send({ id, args });
  });
}

/** freePort finds a loopback port that is free, and (for cluster nodes) whose bus port +10000 is too. */
export async function freePort(withBus = false): Promise<number> {
  for (;;) {
    const port = await listenOnce(0);
    if (
      port < 55_000 &&
      (!withBus ||
        (await listenOnce(port + 10_000).then(
          () => true,
          () => false,
        )))
    )
      return port;
  }
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

/** ping answers whether a server on `port` replies +PONG within `timeoutMs`. */
export function ping(port: number, timeoutMs = 200): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** waitFor polls `check` every 10 ms until it holds, failing after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export class RedisServer {
  readonly port: number;
  readonly #args: readonly string[];
  readonly #dir: string;
  #pid: number | undefined;

  constructor(port: number, args: readonly string[] = []) {
    this.port = port;
    this.#args = args;
    this.#dir = mkdtempSync(join(tmpdir(), 'rk-redis-'));
  }

  /** start launches the server and resolves once it answers PING. */
  async start(): Promise<this> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.#dir, ...this.#args];
    this.#pid = await launch(args);
    await waitFor(`redis-server on port ${this.port}`, () => ping(this.port));
    return this;
  }

  /**
   * prioritise raises the server's scheduling priority (nice -20) where the test runs as root. In
   * production Redis has a core of its own; on a 2-core test machine it shares them with the worker
   * processes that load it, and the scheduler can leave it off the CPU for longer than a store's
   * liveness timeout, which would measure the machine rather than the store. False where not allowed.
   */
  prioritise(): boolean {
    if (this.#pid === undefined) return false;
    try {
      execFileSync('renice', ['-n', '-20', '-p', String(this.#pid)], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }

  pause(): void {
    this.#signal('SIGSTOP');
  }

  resume(): void {
    this.#signal('SIGCONT');
  }

  /** kill sends SIGKILL and resolves once the process is gone (its script cache with it). */
  async kill(): Promise<void> {
    const pid = this.#pid;
    if (pid === undefined || !running.has(pid)) return;
    const exited = new Promise<void>((resolve) => exits.set(pid, resolve));
    kill(pid, 'SIGKILL');
    await exited;
    this.#pid = undefined;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  /** cli runs redis-cli against this server and answers its output. */
  cli(...args: string[]): string {
    return execFileSync('redis-cli', ['-p', String(this.port), ...args], { encoding: 'utf8' }).trim();
  }

  #signal(signal: NodeJS.Signals): void {
    if (this.#pid === undefined) throw new Error('redis-server is not running');
    kill(this.#pid, signal);
  }
}

/** startServer starts a standalone server on a free port. */
export async function startServer(args: readonly string[] = []): Promise<RedisServer> {
  return new RedisServer(await freePort(), args).start();
}

/** startCluster starts `size` cluster nodes, joins them into one cluster and waits for state ok. */
export async function startCluster(size = 3): Promise<RedisServer[]> {
  const nodes: RedisServer[] = [];
  for (let i = 0; i < size; i++) {
    const port = await freePort(true);
    const args = ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '5000'];
    nodes.push(await new RedisServer(port, args).start());
  }
  const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
  execFileSync('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { stdio: 'ignore' });
  for (const node of nodes) {
    await waitFor(`cluster state ok on ${node.port}`, () => node.cli('CLUSTER', 'INFO').includes('cluster_state:ok'), 10_000);
  }
  return nodes;
}
