/**
 * Issue 31, item 4: a SQLite file moved or deleted while processes decide on it must not split the
 * limit in silence. Before, a process that had the file open kept deciding on the unlinked file while
 * processes started later created a new one at the path (1,000 admitted for 500, no failure, no
 * warning). Now each write transaction compares the path's inode with the open file's (src/file.ts):
 * on a mismatch that call is decided by the failure policy and reported ('moved': the 'failure' event,
 * or the once-per-process warning RATEKEEPER_SQLITE_MOVED), and the next call opens the path, so every
 * process decides on one file again. Processes with DEFAULT options (./support/decider.mjs), and in
 * process with a listener, a deleted file and a renamed one; the mutant 'no-inode-check' splits.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { afterAll, describe, expect, it } from 'vitest';
import { type FailureInfo, SqliteStore } from '../src/index.js';
import { tempDir } from './support/files.js';
import { mutantBuild } from './support/mutant-builds.js';

const DECIDER = fileURLToPath(new URL('./support/decider.mjs', import.meta.url));
const DIST = pathToFileURL(fileURLToPath(new URL('../dist/esm/index.js', import.meta.url))).href;
const dir = tempDir();
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill();
  dir.remove();
});

interface Answer {
  readonly admitted: number;
  readonly failures: readonly (string | null)[];
  readonly warnings: readonly string[];
}

/** decider starts a process deciding on `path` with `dist`'s store; `consume(n)` answers once it has decided. */
async function decider(dist: string, path: string): Promise<(n: number) => Promise<Answer>> {
  const child = fork(DECIDER, [dist, path], { stdio: ['ignore', 'inherit', 'ignore', 'ipc'] });
  children.push(child);
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', () => reject(new Error('the decider exited')));
  });
  return (n) =>
    new Promise((resolve) => {
      child.once('message', (answer) => resolve(answer as Answer));
      child.send({ n });
    });
}

/** remove deletes the database file and its WAL files, as an operator or a cleaner would. */
function remove(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** afterDeletion: A decides once, the file is deleted, B (started after) takes the whole limit of 10, then A asks for 10. */
async function afterDeletion(dist: string): Promise<{ a: Answer; b: Answer }> {
  const path = dir.file();
  const a = await decider(dist, path);
  expect((await a(1)).admitted).toBe(1);
  remove(path);
  const b = await (await decider(dist, path))(10);
  return { a: await a(10), b };
}

describe('a file deleted while a process has it open', () => {
  it('is reported once by that process, which then decides on the new file at the path (default options)', async () => {
    const { a, b } = await afterDeletion(DIST);
    expect(b).toEqual({ admitted: 10, failures: Array(10).fill(null), warnings: [] });
    // One call decided by the fallback (reported), then the limit B has used up.
    expect(a).toEqual({ admitted: 1, failures: ['fallback', ...Array(9).fill(null)], warnings: ['RATEKEEPER_SQLITE_MOVED'] });
  });

  it('catches a store that skips the inode check (mutant no-inode-check): the limit splits in silence', async () => {
    const { a } = await afterDeletion(mutantBuild('no-inode-check'));
    expect(a).toEqual({ admitted: 9, failures: Array(10).fill(null), warnings: [] });
  });
});

describe('a moved or deleted file, in one process with a listener', () => {
  for (const [what, move] of [
    ['deleted', (path: string) => remove(path)],
    ['renamed', (path: string) => renameSync(path, `${path}.moved`)],
  ] as const) {
    it(`${what}: the next write is reported as 'moved' and decided by the policy; the one after, on the path`, () => {
      const path = dir.file();
      const store = new SqliteStore({ path });
      const failures: FailureInfo[] = [];
      store.on('failure', (info) => failures.push(info));
      const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 60_000, store, clock: new ManualClock(0), name: 'here' });
      expect([limiter.consume('k'), limiter.consume('k')].map((d) => d.allowed)).toEqual([true, true]);
      move(path);
      expect(existsSync(path)).toBe(false);
      const reported = limiter.consume('k');
      expect([reported.allowed, reported.failure]).toEqual([true, 'fallback']);
      expect(failures.map((f) => [f.operation, f.policy, f.reason])).toEqual([['consume', 'here', 'moved']]);
      // A new file at the path: a fresh limit, decided there.
      expect([limiter.consume('k'), limiter.consume('k'), limiter.consume('k')].map((d) => [d.allowed, d.failure])).toEqual([
        [true, undefined],
        [true, undefined],
        [false, undefined],
      ]);
      expect(existsSync(path)).toBe(true);
      expect(failures).toHaveLength(1);
      store.close();
    });
  }
});
