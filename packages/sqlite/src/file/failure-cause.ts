/**
 * causeOf names why the SQLite file could not decide, for the one-time warning a SqliteStore gives
 * (core's failureWarner): one code per failure reason (./failure.ts), so each is told once per process,
 * with the file's path and the driver's SQLite code (never its message). A file is local, so there is
 * no connection to refuse: the causes a user meets are a path the process cannot open or write (the
 * "never connected" of a file: a missing or read-only directory), a lock held beyond busyTimeoutMs (the
 * file's "timed out"), a file that is not a database or is damaged, and a failing or full disk.
 * 'unavailable' (not tried: the file failed recently) follows a failure already told, and is not.
 */
import type { FailureCause } from '@ratekeeper/core/store';
import type { FailureInfo } from './failure.js';

/** sqliteCode is the driver's SQLite code: better-sqlite3's and bun:sqlite's name, or node:sqlite's number. */
function sqliteCode(error: unknown): string {
  const e = error as { code?: unknown; errcode?: unknown } | null | undefined;
  if (typeof e?.code === 'string' && /^SQLITE_[A-Z_]{1,40}$/.test(e.code)) return ` (${e.code})`;
  if (typeof e?.errcode === 'number') return ` (SQLite code ${e.errcode})`;
  return '';
}

/** causeOf is the cause of `info` on the file at `path`, or undefined for 'unavailable'. */
export function causeOf(info: FailureInfo, path: string, busyTimeoutMs: number): FailureCause | undefined {
  const code = sqliteCode(info.error);
  switch (info.reason) {
    case 'unavailable':
      return undefined;
    case 'access':
      return {
        code: 'RATEKEEPER_SQLITE_ACCESS',
        text: `${path} cannot be opened, created or written${code}: does its directory exist, and may this process write to it and to the file?`,
      };
    case 'busy':
      return {
        code: 'RATEKEEPER_SQLITE_BUSY',
        text: `${path} stayed locked by another connection with no commit for ${busyTimeoutMs} ms (busyTimeoutMs)${code}: a process stopped inside a transaction, or a long transaction or VACUUM`,
      };
    case 'corrupt':
      return { code: 'RATEKEEPER_SQLITE_CORRUPT', text: `${path} is not a database, or is damaged${code}: give the store a path of its own` };
    case 'io':
      return { code: 'RATEKEEPER_SQLITE_IO', text: `the disk holding ${path} failed or is full, or SQLite ran out of memory${code}` };
    default:
      return { code: 'RATEKEEPER_SQLITE_ERROR', text: `deciding threw something that is not a SQLite error${code}` };
  }
}
