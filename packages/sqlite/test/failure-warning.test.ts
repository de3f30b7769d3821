/**
 * A SqliteStore whose file cannot decide says so, with DEFAULT options: without a 'failure' listener,
 * its first failure of each cause warns once per process (a 'RatekeeperWarning' on Node's process
 * warnings, the trust-proxy warning's channel), naming the cause with the file's path, what decides
 * meanwhile and how to silence it (`failureWarning: false`, the option every store with a failure
 * policy takes). A file has no connection to refuse: its causes are a path it cannot open or write (a
 * missing directory, shown here), a lock held beyond busyTimeoutMs, a file that is not a database
 * (shown here), a failing disk; the table names each. A store that decides never warns. The mutant
 * 'silent-failures' (the store's warning call removed, today's behaviour before this warning) stays
 * silent and is caught.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { forgetFailureWarnings } from '@ratekeeper/core/store';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type FailureInfo, causeOf } from '../src/failure.js';
import { SqliteStore } from '../src/index.js';
import { tempDir } from './support/files.js';
import { mutantBuild } from './support/mutant-builds.js';
import { warningsOnProcess } from '@ratekeeper/store-contract';

const dir = tempDir();
afterAll(() => dir.remove());
const { ours, settle } = warningsOnProcess(forgetFailureWarnings);
const stores: { close(): void }[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

async function limiterOn(path: string, build?: string, extra: object = {}) {
  const { SqliteStore: Store } = (build === undefined ? { SqliteStore } : await import(build)) as { SqliteStore: typeof SqliteStore };
  const store = new Store({ path, ...extra });
  stores.push(store);
  return { store, limiter: new FixedWindowLimiter({ store, limit: 2, windowMs: 60_000, clock: new ManualClock(0) }) };
}
const failuresOf = (limiter: FixedWindowLimiter<'sync'>, n: number) => Array.from({ length: n }, () => limiter.consume('k').failure);
const missing = () => join(dir.dir, 'no-such-directory', 'limits.sqlite');

describe('causeOf', () => {
  const info = (reason: FailureInfo['reason'], error?: unknown): FailureInfo => ({ operation: 'consume', policy: 'p', reason, error });
  it.each([
    ['access', { code: 'SQLITE_CANTOPEN' }, 'RATEKEEPER_SQLITE_ACCESS', '/x.db cannot be opened, created or written (SQLITE_CANTOPEN)'],
    ['busy', { code: 'SQLITE_BUSY' }, 'RATEKEEPER_SQLITE_BUSY', '/x.db stayed locked by another connection with no commit for 5000 ms (busyTimeoutMs) (SQLITE_BUSY)'],
    ['corrupt', { errcode: 26 }, 'RATEKEEPER_SQLITE_CORRUPT', '/x.db is not a database, or is damaged (SQLite code 26)'],
    ['io', { code: 'SQLITE_FULL' }, 'RATEKEEPER_SQLITE_IO', 'the disk holding /x.db failed or is full, or SQLite ran out of memory (SQLITE_FULL)'],
    ['error', new TypeError('a bug'), 'RATEKEEPER_SQLITE_ERROR', 'deciding threw something that is not a SQLite error'],
  ] as const)('%s', (reason, error, code, text) => {
    expect(causeOf(info(reason, error), '/x.db', 5000)).toEqual({ code, text: expect.stringContaining(text) });
  });

  it("names nothing for 'unavailable': it follows a failure already told", () => {
    expect(causeOf(info('unavailable'), '/x.db', 5000)).toBeUndefined();
  });
});

describe('the failure warning of a SqliteStore, DEFAULT options', () => {
  it('warns once, naming the path, for a file in a missing directory', async () => {
    const path = missing();
    const { limiter } = await limiterOn(path);
    expect(failuresOf(limiter, 4)).toEqual(['fallback', 'fallback', 'fallback', 'fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_SQLITE_ACCESS']);
    const [warning] = ours();
    expect(warning?.message).toContain('SqliteStore: the SQLite file could not decide');
    expect(warning?.message).toContain("onFailure: 'fallback'");
    expect(warning?.message).toContain(`${path} cannot be opened, created or written`);
    expect(warning?.message).toContain('failureWarning: false');
  });

  it('warns once for a file that is not a database', async () => {
    const path = dir.file();
    writeFileSync(path, 'not a database, but a page of text long enough to be read as a header '.repeat(20));
    const { limiter } = await limiterOn(path);
    expect(failuresOf(limiter, 2)).toEqual(['fallback', 'fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_SQLITE_CORRUPT']);
    expect(ours()[0]?.message).toContain(`${path} is not a database, or is damaged`);
  });

  it('catches the mutant that decides in silence', async () => {
    const { limiter } = await limiterOn(missing(), mutantBuild('silent-failures'));
    expect(failuresOf(limiter, 2)).toEqual(['fallback', 'fallback']);
    await settle();
    expect(ours()).toEqual([]);
  });

  it('says nothing for a store that decides', async () => {
    const { limiter } = await limiterOn(dir.file());
    expect(failuresOf(limiter, 3)).toEqual([undefined, undefined, undefined]);
    await settle();
    expect(ours()).toEqual([]);
  });

  it("is silenced by a 'failure' listener, and by failureWarning: false", async () => {
    const listened = await limiterOn(missing());
    const seen: string[] = [];
    listened.store.on('failure', (info) => void seen.push(info.reason));
    const off = await limiterOn(missing(), undefined, { failureWarning: false });
    expect(failuresOf(listened.limiter, 1)).toEqual(['fallback']);
    expect(failuresOf(off.limiter, 1)).toEqual(['fallback']);
    await settle();
    expect(seen).toEqual(['access']);
    expect(ours()).toEqual([]);
  });

  it('refuses a failureWarning that is not a boolean, naming it', () => {
    expect(() => new SqliteStore({ path: dir.file(), failureWarning: 'no' as never })).toThrowError(new TypeError('SqliteStore: failureWarning must be a boolean, got "no"'));
  });
});
