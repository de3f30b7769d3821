/**
 * A MariaDB server of the test's own, for the suites that stop, kill or restart one: its data in a
 * temporary directory (mariadb-install-db), on a free port of 127.0.0.1, user root without a password,
 * database `test`. `hasServerBinaries` says whether this machine can start one. A server that exits
 * at start (its port taken meanwhile by another process of the machine), or a port answered by
 * another server, fails loudly: a test must never signal one server and talk to another.
 * `ownServer` starts one for a test file; `storeOn` makes a store of DEFAULT options on it, with an
 * administrator's pool beside it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll } from 'vitest';
import type { FailureInfo, MySqlStore } from '../../src/index.js';

const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find((p) => existsSync(p));
const INSTALL = ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'].find((p) => existsSync(p));
export const hasServerBinaries = MARIADBD !== undefined && INSTALL !== undefined;

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

export class PrivateServer {
  readonly dir = mkdtempSync(join(tmpdir(), 'rk-mariadb-'));
  port = 0;
  #child: ChildProcess | undefined;

  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}/test`;
  }

  /** start installs the data directory (once) and starts the server, resolving once it accepts connections. */
  async start(): Promise<void> {
    if (!existsSync(join(this.dir, 'data'))) {
      execFileSync(INSTALL as string, ['--no-defaults', `--datadir=${join(this.dir, 'data')}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db'], {
        stdio: 'ignore',
      });
    }
    if (this.port === 0) this.port = await freePort();
    const args = ['--no-defaults', `--datadir=${join(this.dir, 'data')}`, `--port=${this.port}`, `--socket=${join(this.dir, 'sock')}`, '--bind-address=127.0.0.1', '--user=root'];
    this.#child = spawn(MARIADBD as string, [...args, '--skip-log-bin', '--innodb-buffer-pool-size=16M'], { stdio: 'ignore' });
    for (let i = 0; ; i++) {
      if (this.#child.exitCode !== null || this.#child.signalCode !== null) throw new Error(`the private MariaDB server exited at start (port ${this.port} taken?)`);
      const c = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root' }).catch(() => undefined);
      if (c !== undefined) {
        const [rows] = await c.query('SELECT @@datadir AS d');
        if (!String((rows as { d: unknown }[])[0]?.d).startsWith(this.dir)) throw new Error(`port ${this.port} is answered by another server`);
        await c.query('CREATE DATABASE IF NOT EXISTS test');
        await c.end();
        return;
      }
      if (i > 300) throw new Error('the private MariaDB server did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** signal sends `signal` to the server (SIGSTOP: it hangs; SIGCONT: it goes on; SIGKILL: it crashes). */
  signal(signal: NodeJS.Signals): void {
    this.#child?.kill(signal);
  }

  /** exited resolves once the server process has ended. */
  exited(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => child.once('exit', () => resolve()));
  }

  async stop(): Promise<void> {
    this.signal('SIGCONT');
    this.signal('SIGKILL');
    await this.exited();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** ownServer is a PrivateServer started before this file's tests (when the binaries are here) and stopped after them. */
export function ownServer(): PrivateServer {
  const server = new PrivateServer();
  beforeAll(async () => {
    if (hasServerBinaries) await server.start();
  }, 120_000);
  afterAll(() => server.stop());
  return server;
}

/** storeOn makes a store of `Store` with DEFAULT options on `table` of `server` (a pool of 10), its failures, and an administrator's pool of 1. */
export function storeOn(server: PrivateServer, Store: typeof MySqlStore, table: string) {
  const pool = mysql.createPool({ uri: server.url, connectionLimit: 10, connectTimeout: 2_000 });
  const admin = mysql.createPool({ uri: server.url, connectionLimit: 1 });
  const store = new Store({ client: pool, table });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const end = async () => {
    await pool.end().catch(() => undefined);
    await admin.end().catch(() => undefined);
  };
  return { store, failures, admin, end };
}
