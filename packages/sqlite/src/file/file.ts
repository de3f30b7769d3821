/**
 * SqliteFile: the store's one connection to the file, and the only way anything reaches it: `transact`
 * runs a function inside one transaction and answers its result, or a Failure when the file could not
 * decide. A write transaction is BEGIN IMMEDIATE: it takes the file's write lock before it reads, so
 * between its read of a key and its write no other connection, in this process or another, can write
 * anything (SQLite has one writer at a time per file). That is what makes running core's TypeScript
 * steps here, in the process, exact: inside the transaction this process holds the only copy of the
 * key's truth that anyone can change, exactly as the memory store does inside one synchronous call.
 * (A deferred BEGIN would read first and ask for the lock at its first write: two processes could read
 * the same state, and one of them would then fail with SQLITE_BUSY_SNAPSHOT. Reads that change nothing,
 * a peek, use it: a snapshot is all they need.)
 *
 * Waiting for the lock: SQLite's busy handler polls the lock with growing sleeps and no queue, so
 * under contention a process can lose the race for longer than any fixed timeout while the others
 * keep deciding (8 processes on 2 busy cores starved one for over a second). A busy file is not a
 * failing one: a write waits in slices of BUSY_SLICE_MS, and between slices reads PRAGMA data_version,
 * which changes whenever another connection commits. The file counts as failing ('busy') only when no
 * one has committed for `busyTimeoutMs` while this call waited: a holder that stopped (SIGSTOP, a
 * debugger, a hung disk) or an administrator's long transaction, never a queue of deciding processes.
 *
 * The connection is opened on first use, not at construction (a listener for 'failure' can then see a
 * missing directory or a corrupt file), and again after a failure of the file itself. After such a
 * failure the file is not tried for `probeIntervalMs`: calls fail at once as 'unavailable' (a stopped
 * lock holder would otherwise block every decision for the whole busy timeout); then one call, the
 * probe, tries once, waiting one slice at most for the lock, and its success closes the breaker.
 */
import type { Connection, Driver } from './driver.js';
import { Failure, UNAVAILABLE, failureOf } from './failure.js';
import { Peers } from './peers.js';
import { setUp } from '../sql/schema.js';
import { BEAT_MS } from '@ratekeeper/core/store';
import { type Sql, prepare } from '../sql/sql.js';

/** BUSY_SLICE_MS is how long one try for the lock waits (SQLite's busy_timeout) before the file's progress is checked. */
export const BUSY_SLICE_MS = 50;

export class SqliteFile {
  readonly #driver: Driver;
  readonly #path: string;
  readonly #busyTimeoutMs: number;
  readonly #probeIntervalMs: number;
  #db: Connection | undefined;
  #sql: Sql | undefined;
  /** performance.now() before which the file is not tried again (0: closed breaker). */
  #retryAt = 0;

  /** The processes last seen on the file (./peers.ts): each write transaction beats when one is due. */
  readonly peers = new Peers();
  #beating: ReturnType<typeof setInterval> | undefined;

  constructor(driver: Driver, path: string, busyTimeoutMs: number, probeIntervalMs: number) {
    this.#driver = driver;
    this.#path = path;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#probeIntervalMs = probeIntervalMs;
  }

  /** transact runs `body` in one write (or, with `write` false, read) transaction: its result, or a Failure. */
  transact<T>(write: boolean, body: (sql: Sql) => T): T | Failure {
    if (this.#beating === undefined) this.#startBeating();
    const probing = this.#retryAt !== 0;
    if (probing && performance.now() < this.#retryAt) return UNAVAILABLE;
    let sql: Sql | undefined;
    try {
      const open = (sql = this.#sql ?? this.#open());
      if (!write) open.beginRead.run();
      else if (probing) open.begin.run();
      else this.#waitFor(this.#db as Connection, () => open.begin.run());
      const result = body(open);
      if (write && this.peers.due) this.peers.beat(open);
      sql.commit.run();
      this.#retryAt = 0;
      return result;
    } catch (error) {
      return this.#failed(error, sql);
    }
  }

  /** A quiet process beats too, from a timer (unref'd: it keeps no process alive); a failed beat is not reported. */
  #startBeating(): void {
    this.#beating = setInterval(() => {
      if (this.peers.due && this.#retryAt === 0) this.transact(true, () => undefined);
    }, BEAT_MS);
    this.#beating.unref();
  }

  /** close closes the connection (a later call opens it again) and stops the beats until then. */
  close(): void {
    clearInterval(this.#beating);
    this.#beating = undefined;
    const db = this.#db;
    this.#db = undefined;
    this.#sql = undefined;
    try {
      db?.close();
    } catch {
      // Closing a connection the file has failed under can fail too; nothing is left to release.
    }
  }

  /**
   * #waitFor runs `attempt` (which takes the write lock), waiting while other connections commit (see
   * above): it throws the last SQLITE_BUSY once no one has committed for busyTimeoutMs.
   */
  #waitFor(db: Connection, attempt: () => void): void {
    let progressAt = performance.now();
    let version: unknown;
    for (;;) {
      const tried = performance.now();
      try {
        attempt();
        return;
      } catch (error) {
        if (failureOf(error).reason !== 'busy') throw error;
        // A driver whose SQLite sleeps only in whole seconds answers BUSY at once: pause 1–3 ms
        // rather than spin, so that the holder gets the CPU to finish.
        if (performance.now() - tried < 1) pause(1 + 2 * Math.random());
        const seen = db.prepare('PRAGMA data_version').get()?.['data_version'];
        const now = performance.now();
        if (version !== undefined && seen !== version) progressAt = now;
        version = seen;
        if (now - progressAt >= this.#busyTimeoutMs) throw error;
      }
    }
  }

  #open(): Sql {
    let db: Connection;
    try {
      db = this.#driver.open(this.#path);
    } catch (error) {
      // better-sqlite3 checks the directory itself and throws a plain TypeError: still an 'access' failure.
      throw failureOf(error).reason === 'error' ? new OpenError(this.#path, error) : error;
    }
    try {
      // Processes starting together all set the file up: each waits while another is at it.
      this.#waitFor(db, () => setUp(db, Math.min(BUSY_SLICE_MS, this.#busyTimeoutMs)));
      this.#sql = prepare(db);
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;
    return this.#sql;
  }

  #failed(error: unknown, sql: Sql | undefined): Failure {
    try {
      sql?.rollback.run();
    } catch {
      // No transaction was left open (it never began, or SQLite rolled it back itself).
    }
    const failure = failureOf(error);
    if (!failure.breaks) return failure;
    this.#retryAt = performance.now() + this.#probeIntervalMs;
    // A file that cannot be opened, is corrupt or failed on disk is opened afresh at the probe (it may
    // have been repaired or replaced); a lock held elsewhere is waited out on the same connection.
    if (failure.reason !== 'busy') this.close();
    return failure;
  }
}

/** OpenError: a driver could not open the file and threw no SQLite code (classified as SQLITE_CANTOPEN). */
class OpenError extends Error {
  readonly code = 'SQLITE_CANTOPEN';
  constructor(path: string, cause: unknown) {
    super(`SqliteStore: cannot open ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** pause blocks this thread for `ms` (the store is synchronous: it waits as SQLite's busy handler does). */
function pause(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
