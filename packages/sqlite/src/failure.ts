/**
 * Failures of the file: what a driver threw, as a reason (./file.ts gives it to the kit in core's
 * Failure), and the warning's cause of each. A failed transaction recorded nothing (it rolled back).
 *   'busy'         the file stayed locked by another connection, with no commit, for busyTimeoutMs.
 *   'access'       the file cannot be opened, created or written (a missing or read-only directory …).
 *   'corrupt'      not a database, a damaged page, or ratekeeper tables of another schema version.
 *   'io'           the disk failed or is full, or SQLite ran out of memory.
 *   'moved'        the file was moved or deleted while open (./file.ts): the next call opens the path.
 *   'unavailable'  not tried: the file failed recently, and one call per probeIntervalMs tries again.
 *   'error'        anything else thrown while deciding (not an SQLite error): only that call.
 */
import type { FailureCause, FailureInfo as KitFailureInfo } from '@ratekeeper/core/store';

export type FailureReason = 'busy' | 'access' | 'corrupt' | 'io' | 'moved' | 'unavailable' | 'error';

/** FailureInfo is the payload of SqliteStore's 'failure' event: the call that failed ('consume' … 'renew'), its policy, the reason and the driver's error. */
export type FailureInfo = Omit<KitFailureInfo, 'reason'> & { readonly reason: FailureReason };

/** SQLite's primary result codes (the low byte of an extended code) by name, and the reason of each; any other is 'io'. */
const CODES: Readonly<Record<string, readonly [number, FailureReason]>> = {
  ...{ PERM: [3, 'access'], BUSY: [5, 'busy'], LOCKED: [6, 'busy'], NOMEM: [7, 'io'], READONLY: [8, 'access'], IOERR: [10, 'io'] },
  ...{ CORRUPT: [11, 'corrupt'], FULL: [13, 'io'], CANTOPEN: [14, 'access'], AUTH: [23, 'access'], NOTADB: [26, 'corrupt'] },
};
const BY_NUMBER = new Map(Object.values(CODES));

/** reasonOf classifies what a driver threw: better-sqlite3 and bun:sqlite name the code, node:sqlite numbers it (`errcode`). */
export function reasonOf(error: unknown): FailureReason {
  const e = error as { code?: unknown; errcode?: unknown } | null;
  if (e instanceof MovedError) return 'moved';
  if (typeof e?.errcode === 'number') return BY_NUMBER.get(e.errcode & 0xff) ?? 'io';
  if (typeof e?.code === 'string' && e.code.startsWith('SQLITE_')) return CODES[e.code.slice(7).split('_')[0] as string]?.[1] ?? 'io';
  return 'error';
}

/** MovedError: the path no longer names the file this connection has open (./file.ts). */
export class MovedError extends Error {}

/** sqliteCode is the driver's SQLite code for the warning (never its message). */
function sqliteCode(error: unknown): string {
  const e = error as { code?: unknown; errcode?: unknown } | null | undefined;
  if (typeof e?.code === 'string' && /^SQLITE_[A-Z_]{1,40}$/.test(e.code)) return ` (${e.code})`;
  return typeof e?.errcode === 'number' ? ` (SQLite code ${e.errcode})` : '';
}

/** causeOf names the cause of `info` for the once-per-process warning; 'unavailable' follows another and is not told. */
export function causeOf(info: FailureInfo, path: string, busyTimeoutMs: number): FailureCause | undefined {
  const code = sqliteCode(info.error);
  const texts: Record<FailureReason, string | undefined> = {
    unavailable: undefined,
    access: `${path} cannot be opened, created or written${code}: does its directory exist, and may this process write to it and to the file?`,
    busy: `${path} stayed locked by another connection with no commit for ${busyTimeoutMs} ms (busyTimeoutMs)${code}: a process stopped inside a transaction, or a long transaction or VACUUM`,
    corrupt: `${path} is not a database, or is damaged${code}: give the store a path of its own`,
    io: `the disk holding ${path} failed or is full, or SQLite ran out of memory${code}`,
    moved: `${path} was moved or deleted while this process had it open, so processes could have decided on two files: this process now decides on the file at the path (created if none); keep the file where every process opens it`,
    error: `deciding threw something that is not a SQLite error${code}`,
  };
  const text = texts[info.reason];
  return text === undefined ? undefined : { code: `RATEKEEPER_SQLITE_${info.reason.toUpperCase()}`, text };
}
