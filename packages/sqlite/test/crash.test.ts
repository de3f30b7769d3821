/**
 * A process SIGKILLed inside a transaction loses nothing and corrupts nothing. The child
 * (support/crasher.mjs) has 200 composite requests admitted, then is killed in the middle of the
 * 201st: the first member's row already written, the second's write under way, the write lock held.
 * Afterwards the file passes PRAGMA integrity_check, both members hold exactly the 200 admitted (the
 * killed transaction left no trace, all or nothing; every admitted request is there), and another
 * process decides at once (the dead process's lock went with it). The same check catches the
 * no-transaction mutant build (each statement its own commit: the first member keeps the killed
 * request's charge).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { fixedWindow, tokenBucket } from '@ratekeeper/core/store';
import { afterAll, describe, expect, it } from 'vitest';
import { type FailureInfo, SqliteStore } from '../src/index.js';
import { loadDriver } from '../src/driver.js';
import { tempDir } from './support/files.js';
import { mutantBuild } from './support/mutant-builds.js';

const CRASHER = fileURLToPath(new URL('./support/crasher.mjs', import.meta.url));
const DIST = pathToFileURL(fileURLToPath(new URL('../dist/esm/index.js', import.meta.url))).href;
const dir = tempDir();

afterAll(() => dir.remove());

/** waitFor polls `ready` every 5 ms, failing after `ms` (a condition, bounded: no fixed sleep). */
async function waitFor(ready: () => boolean, ms: number, what: string): Promise<void> {
  const until = performance.now() + ms;
  while (!ready()) {
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** killMidTransaction runs the crasher on a fresh file, kills it inside its last transaction, and answers the file and how many it had admitted. */
async function killMidTransaction(dist: string): Promise<{ path: string; admitted: number }> {
  const path = dir.file();
  const marker = `${path}.marker`;
  const child: ChildProcess = spawn(process.execPath, [CRASHER, dist, path, marker], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await waitFor(() => existsSync(marker) && readFileSync(marker, 'utf8') !== '', 60_000, 'the crasher to enter its last transaction');
  child.kill('SIGKILL');
  await exited;
  return { path, admitted: Number(readFileSync(marker, 'utf8')) };
}

const NOW = 1_700_000_000_000;
const BUCKET = Object.freeze({
  algorithm: 'token-bucket',
  name: 'crash-a',
  capacity: 1000,
  refillPerSecond: 1e-6,
  intervalMs: 1e9,
  burstMs: 1e12,
  limit: 1000,
  windowMs: 1e12,
} as const);
const WINDOW = Object.freeze({ algorithm: 'fixed-window', name: 'crash-b', limit: 1000, windowMs: 1e12 } as const);

/** inspect checks the file's integrity and reads what each member has left for the key, as a peek in a new process would. */
function inspect(path: string): { integrity: unknown; bucketLeft: number; windowLeft: number } {
  const db = loadDriver('test', 'auto').open(path);
  const integrity = db.prepare('PRAGMA integrity_check').get()?.['integrity_check'];
  db.close();
  const store = new SqliteStore({ path });
  const left = { bucketLeft: store.bind(tokenBucket, BUCKET).peek('k', NOW, 1).remaining + 1, windowLeft: store.bind(fixedWindow, WINDOW).peek('k', NOW, 1).remaining + 1 };
  store.close();
  return { integrity, ...left };
}

describe('a process killed with SIGKILL inside a transaction', () => {
  it('leaves an intact file holding exactly what was admitted, and no lock', async () => {
    const { path, admitted } = await killMidTransaction(DIST);
    expect(admitted).toBe(200);
    expect(inspect(path)).toEqual({ integrity: 'ok', bucketLeft: 800, windowLeft: 800 });
    const store = new SqliteStore({ path });
    const failures: FailureInfo[] = [];
    store.on('failure', (info) => failures.push(info));
    const limiter = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, store, clock: new ManualClock(0) });
    expect(limiter.consume('after').allowed).toBe(true);
    expect(failures).toEqual([]);
    store.close();
  });

  it('catches the no-transaction mutant keeping half of the killed request', async () => {
    const { path, admitted } = await killMidTransaction(mutantBuild('no-transaction'));
    expect(admitted).toBe(200);
    expect(inspect(path)).not.toEqual({ integrity: 'ok', bucketLeft: 800, windowLeft: 800 });
  });
});
