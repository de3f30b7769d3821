/**
 * When the file cannot decide, the failure policy does, with default options unless the policy is the
 * subject: a file locked beyond the busy timeout by a stopped holder, a missing directory, a directory
 * the process may not write, a file that is not a database, a database with a damaged page. Each is
 * reported through the 'failure' event with its reason; no call throws, no Decision carries error
 * text; 'fallback' (default) decides on an in-process limiter, 'open' admits, 'closed' denies with
 * Retry-After 1. After a failure of the file, calls fail at once ('unavailable') until a probe finds it
 * working again; the fallback enforces the limit divided by the processes sharing the file. Mutant
 * builds: failures thrown to the caller, and an undivided fallback, each caught by the same check.
 * Waits are conditions polled with a bound, never fixed sleeps.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Decision, FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { afterAll, describe, expect, it } from 'vitest';
import { CLOSED_RETRY_AFTER_MS, type FailureInfo, SqliteStore, type SqliteStoreOptions } from '../src/index.js';
import { loadDriver } from '../src/driver.js';
import { tempDir } from './support/files.js';
import { mutantBuild } from './support/mutant-builds.js';

const dir = tempDir();
afterAll(() => {
  chmodSync(dir.dir, 0o755);
  dir.remove();
});

function subject(options: SqliteStoreOptions) {
  const store = new SqliteStore(options);
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 60_000, store, clock: new ManualClock(0) });
  return { store, failures, limiter };
}

/** noErrorText: a decision holds the documented fields only, none with the driver's words. */
function expectNoErrorText(decisions: readonly Decision[]): void {
  for (const d of decisions) {
    expect(Object.keys(d).sort()).toEqual(['allowed', 'failure', 'limit', 'policy', 'remaining', 'resetAfterMs', 'retryAfterMs']);
    expect(JSON.stringify(d)).not.toMatch(/sqlite|locked|database|disk|file/i);
  }
}

/** valid makes a working database file at `path` (created by a store's first decision). */
function valid(path: string): void {
  const store = new SqliteStore({ path });
  new FixedWindowLimiter({ limit: 2, windowMs: 60_000, store }).consume('seed');
  store.close();
}

describe('a file that cannot decide', () => {
  it('decides on the fallback when another connection holds the write lock beyond the busy timeout, then recovers', async () => {
    const path = dir.file();
    valid(path);
    const holder = loadDriver('test', 'auto').open(path);
    holder.exec('BEGIN IMMEDIATE'); // a stopped process inside its transaction: no one commits
    const { store, failures, limiter } = subject({ path });
    const started = performance.now();
    const first = limiter.consume('k');
    expect(performance.now() - started).toBeGreaterThanOrEqual(store.busyTimeoutMs - 1);
    const second = limiter.consume('k');
    const third = limiter.consume('k');
    expect([first, second, third].map((d) => [d.allowed, d.failure])).toEqual([
      [true, 'fallback'],
      [true, 'fallback'],
      [false, 'fallback'],
    ]);
    expect(failures.map((f) => f.reason)).toEqual(['busy', 'unavailable', 'unavailable']);
    expect(failures[0]).toMatchObject({ operation: 'consume', policy: 'fw-2-60000' });
    expectNoErrorText([first, second, third]);
    holder.exec('ROLLBACK');
    holder.close();
    // Recovers within the probe interval: the first call after it decides on the file again.
    const until = performance.now() + 5000;
    let decision = limiter.consume('other');
    while (decision.failure !== undefined && performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      decision = limiter.consume('other');
    }
    expect(decision).toMatchObject({ allowed: true, remaining: 1 });
    expect(decision.failure).toBeUndefined();
    store.close();
  });

  it('waits for a file that other connections keep committing to, however long, and never fails it', () => {
    // Exercised under contention by the contract's burst (test/store-contract.test.ts: no failure with 8 processes); here the
    // wait's own rule: a busyTimeoutMs of 0 never waits, so a held lock fails the call at once.
    const path = dir.file();
    valid(path);
    const holder = loadDriver('test', 'auto').open(path);
    holder.exec('BEGIN IMMEDIATE');
    const { failures, limiter } = subject({ path, busyTimeoutMs: 0 });
    const started = performance.now();
    expect(limiter.consume('k').failure).toBe('fallback');
    expect(performance.now() - started).toBeLessThan(500);
    expect(failures.map((f) => f.reason)).toEqual(['busy']);
    holder.exec('ROLLBACK');
    holder.close();
  });

  it("reports a missing directory as 'access' and decides by each policy", () => {
    const path = join(dir.dir, 'missing', 'db.sqlite');
    const decisions = (['fallback', 'open', 'closed'] as const).map((onFailure) => {
      const { failures, limiter } = subject({ path, onFailure });
      const d = [limiter.consume('k'), limiter.consume('k'), limiter.consume('k')];
      expect(failures.map((f) => f.reason)).toEqual(['access', 'unavailable', 'unavailable']);
      expectNoErrorText(d);
      return d.map((x) => [x.allowed, x.failure, x.retryAfterMs]);
    });
    expect(decisions).toEqual([
      [
        [true, 'fallback', 0],
        [true, 'fallback', 0],
        [false, 'fallback', 60_000],
      ],
      [
        [true, 'open', 0],
        [true, 'open', 0],
        [true, 'open', 0],
      ],
      [
        [false, 'closed', CLOSED_RETRY_AFTER_MS],
        [false, 'closed', CLOSED_RETRY_AFTER_MS],
        [false, 'closed', CLOSED_RETRY_AFTER_MS],
      ],
    ]);
  });

  it('catches a store that throws a failure to the caller (the missing directory, same check)', async () => {
    const { SqliteStore: Mutant } = (await import(mutantBuild('throwing-failures'))) as { SqliteStore: typeof SqliteStore };
    const store = new Mutant({ path: join(dir.dir, 'missing', 'db.sqlite') });
    store.on('failure', () => {});
    const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 60_000, store, clock: new ManualClock(0) });
    expect(() => [limiter.consume('k'), limiter.consume('k'), limiter.consume('k')]).toThrow();
  });

  it("reports a directory the process may not write as 'access' (run without the right to override file permissions)", () => {
    const locked = join(dir.dir, 'read-only');
    mkdirSync(locked);
    valid(join(locked, 'db.sqlite'));
    // No journal files left behind (bun:sqlite keeps -wal and -shm after close; better-sqlite3 removes
    // them): with them in place the store needs to create nothing in the directory, and decides.
    for (const suffix of ['-wal', '-shm']) rmSync(join(locked, `db.sqlite${suffix}`), { force: true });
    chmodSync(join(locked, 'db.sqlite'), 0o644);
    chmodSync(locked, 0o555);
    chmodSync(dir.dir, 0o755);
    const probe = fileURLToPath(new URL('./support/readonly-probe.mjs', import.meta.url));
    const dist = pathToFileURL(fileURLToPath(new URL('../dist/esm/index.js', import.meta.url))).href;
    // Root ignores file permissions: the probe runs without any capability (setpriv empties the
    // inheritable, ambient and bounding sets, so none survives the exec whatever the parent holds), as
    // the root of the checkout may not be readable by another user (a CI clone in a 0700 directory).
    const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const args = [probe, dist, join(locked, 'db.sqlite')];
    const out = asRoot
      ? execFileSync('setpriv', ['--inh-caps=-all', '--ambient-caps=-all', '--bounding-set=-all', process.execPath, ...args], { encoding: 'utf8' })
      : execFileSync(process.execPath, args, { encoding: 'utf8' });
    const { premise, ...observed } = JSON.parse(out) as { premise: string };
    // The premise first: a probe that may still write the directory proves nothing about the store.
    expect(premise, 'the probe could still create a file in the read-only directory').toBe('denied');
    expect(observed).toEqual({
      decisions: [
        { allowed: true, failure: 'fallback' },
        { allowed: true, failure: 'fallback' },
        { allowed: false, failure: 'fallback' },
      ],
      reasons: ['access', 'unavailable', 'unavailable'],
    });
  });

  it("reports a file that is not a database as 'corrupt'", () => {
    const path = dir.file();
    writeFileSync(path, Buffer.alloc(8192, 'not a database, not at all. '));
    const { failures, limiter } = subject({ path });
    const d = limiter.consume('k');
    expect([d.allowed, d.failure]).toEqual([true, 'fallback']);
    expect(failures.map((f) => f.reason)).toEqual(['corrupt']);
    expectNoErrorText([d]);
  });

  it("reports a database with a damaged page as 'corrupt'", () => {
    const path = dir.file();
    valid(path);
    const raw = loadDriver('test', 'auto').open(path);
    raw.exec('PRAGMA wal_checkpoint(TRUNCATE)'); // the file alone holds the tables
    raw.close();
    const copy = `${path}.damaged`;
    copyFileSync(path, copy);
    const fd = openSync(copy, 'r+');
    for (let page = 1; page < 12; page++) writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, page * 4096);
    closeSync(fd);
    const { failures, limiter } = subject({ path: copy });
    const d = limiter.consume('k');
    expect(d.failure).toBe('fallback');
    expect(failures.map((f) => f.reason)).toEqual(['corrupt']);
  });
});

describe('the fallback of a host', () => {
  /** outage answers [allowed, failure, limit] for 6 requests while a second process shares the file and the lock is held. */
  async function outage(Store: typeof SqliteStore): Promise<unknown[]> {
    const path = dir.file();
    const dist = pathToFileURL(fileURLToPath(new URL('../dist/esm/index.js', import.meta.url))).href;
    // Another process deciding on the same file: its first decision records it among the peers.
    const code = `const { SqliteStore } = await import(${JSON.stringify(dist)}); const { FixedWindowLimiter } = await import('@ratekeeper/core'); new FixedWindowLimiter({ limit: 10, windowMs: 60_000, store: new SqliteStore({ path: ${JSON.stringify(path)} }) }).consume('peer'); console.log('ready'); setInterval(() => {}, 1000);`;
    const peer = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      peer.stdout?.on('data', (chunk: Buffer) => String(chunk).includes('ready') && resolve());
      peer.once('exit', () => reject(new Error('the peer exited')));
    });
    const store = new Store({ path, busyTimeoutMs: 0 });
    store.on('failure', () => {});
    const limiter = new FixedWindowLimiter({ limit: 10, windowMs: 60_000, store, clock: new ManualClock(0) });
    limiter.consume('k');
    expect(store.peers).toBe(2);
    const holder = loadDriver('test', 'auto').open(path);
    holder.exec('BEGIN IMMEDIATE');
    const decisions = Array.from({ length: 6 }, () => limiter.consume('outage'));
    holder.exec('ROLLBACK');
    holder.close();
    peer.kill('SIGKILL');
    return decisions.map((d) => [d.allowed, d.failure, d.limit]);
  }
  const shared = [...Array(5).fill([true, 'fallback', 5]), [false, 'fallback', 5]];

  it('enforces the limit divided by the processes last seen on the file (the default divisor)', async () => {
    expect(await outage(SqliteStore)).toEqual(shared);
  });

  it('catches a store whose fallback enforces the whole limit in every process', async () => {
    const { SqliteStore: Mutant } = (await import(mutantBuild('undivided-fallback'))) as { SqliteStore: typeof SqliteStore };
    expect(await outage(Mutant)).not.toEqual(shared);
  });
});
