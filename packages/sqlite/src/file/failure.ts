/**
 * Failures: what kept the file from deciding, as a value. The store turns a Failure into a Decision by
 * its failure policy (core's decideByPolicy, through ../bindings/backend.ts) and reports it once through the 'failure' event as a
 * FailureInfo; no error text ever reaches a Decision, and nothing is thrown to the caller.
 *
 * A failed transaction recorded nothing: SQLite rolls back a transaction whose statement or COMMIT
 * failed (and the store rolls back whatever is left open), and a synchronous call has no reply that
 * could still arrive. So a request the policy decides was never also counted in the file: unlike a
 * remote store, no deadline is needed to rule that out.
 *
 * Reasons:
 *   'busy'         the file stayed locked by another connection for the whole busy timeout (a process
 *                  stopped inside a transaction, an administrator's long transaction or VACUUM).
 *   'access'       the file cannot be opened, created or written: a missing or read-only directory,
 *                  a read-only file or file system, no permission.
 *   'corrupt'      the file is not a database, or a page of it is damaged (SQLITE_CORRUPT, SQLITE_NOTADB).
 *   'io'           the disk failed or is full (SQLITE_IOERR, SQLITE_FULL) or SQLite ran out of memory.
 *   'unavailable'  not tried: the file failed recently, and one call per probeIntervalMs tries again.
 *   'error'        anything else thrown while deciding (not an SQLite error): only that call is affected.
 */

export type FailureReason = 'busy' | 'access' | 'corrupt' | 'io' | 'unavailable' | 'error';

/** FailureInfo is the payload of SqliteStore's 'failure' event. */
export interface FailureInfo {
  /** The limiter call that failed (a composite reports 'consume' or 'peek'; reserve/wait 'reserve' or 'cancel'; 'renew' a lease renewal). */
  readonly operation: 'consume' | 'peek' | 'allow' | 'reset' | 'refund' | 'reserve' | 'cancel' | 'renew';
  /** The policy's name; a composite's member names joined by '+'. */
  readonly policy: string;
  readonly reason: FailureReason;
  /** The driver's error, when there was one (never for 'unavailable'). */
  readonly error?: unknown;
}

export class Failure {
  readonly reason: FailureReason;
  readonly error: unknown;

  constructor(reason: FailureReason, error?: unknown) {
    this.reason = reason;
    this.error = error;
  }

  /** breaks tells whether the file itself is failing (so calls wait for a probe), rather than one call. */
  get breaks(): boolean {
    return this.reason !== 'error' && this.reason !== 'unavailable';
  }
}

export const UNAVAILABLE = new Failure('unavailable');

/** SQLite's primary result codes (the low byte of an extended code) and the reason each means here. */
const REASONS: Readonly<Record<number, FailureReason>> = {
  3: 'access', // PERM
  5: 'busy', // BUSY
  6: 'busy', // LOCKED
  7: 'io', // NOMEM
  8: 'access', // READONLY
  10: 'io', // IOERR
  11: 'corrupt', // CORRUPT
  13: 'io', // FULL
  14: 'access', // CANTOPEN
  23: 'access', // AUTH
  26: 'corrupt', // NOTADB
};

const NAMES: Readonly<Record<string, number>> = { PERM: 3, BUSY: 5, LOCKED: 6, NOMEM: 7, READONLY: 8, IOERR: 10, CORRUPT: 11, FULL: 13, CANTOPEN: 14, AUTH: 23, NOTADB: 26 };

/**
 * failureOf classifies what a driver threw: better-sqlite3 and bun:sqlite name the code
 * ('SQLITE_BUSY_SNAPSHOT'), node:sqlite numbers it (`errcode`). Any other SQLite code is 'io'.
 */
export function failureOf(error: unknown): Failure {
  const e = error as { code?: unknown; errcode?: unknown } | null;
  let primary: number | undefined;
  if (typeof e?.errcode === 'number') primary = e.errcode & 0xff;
  else if (typeof e?.code === 'string' && e.code.startsWith('SQLITE_')) primary = NAMES[e.code.slice(7).split('_')[0] as string] ?? -1;
  if (primary === undefined) return new Failure('error', error);
  return new Failure(REASONS[primary] ?? 'io', error);
}
