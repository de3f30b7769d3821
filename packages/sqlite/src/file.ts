/**
 * SqliteFile: the kit's SyncTransactor over one SQLite file. `transact` reads the rows a call names,
 * runs the kit's work on them, writes the dirty ones back (./rows.ts) and commits, or answers the
 * Failure that kept it from committing. A write is BEGIN IMMEDIATE: the file's one write lock is held
 * from before the read to the commit, so core's steps run here are exact across processes.
 * - Lock waits: SQLite's busy handler has no queue, so a write waits in slices and reads PRAGMA
 *   data_version between them: the file is 'busy' only when no one committed for busyTimeoutMs.
 * - A moved or deleted file: each write, holding the lock, compares the path's inode with the open
 *   file's (one stat, about a microsecond: a check every N ms would leave N ms of writes on an unlinked
 *   file). On a mismatch the call fails as 'moved' and the next one opens the path.
 * - After another failure of the file, calls fail at once ('unavailable') for probeIntervalMs; then one
 *   call tries, failing after PROBE_QUIET_MS without a commit (a stopped holder); a success runs onRecover.
 * - Every BEAT_MS a write records this process in rk_peers (a quiet one from an unref'd timer): `peers`.
 */
import { statSync } from 'node:fs';
import { BEAT_MS, Failure, MEMBER_TTL_MS, type RowRef, type Rows, type SyncTransactor, UNAVAILABLE, type Work, peerId } from '@ratekeeper/core/store';
import { type Connection, quietly } from './driver.js';
import { MovedError, reasonOf } from './failure.js';
import type { ResolvedOptions } from './options.js';
import { readRows, writeRows } from './rows.js';
import { type Sql, prepare, setUp } from './sql.js';

/** One try for the lock waits BUSY_SLICE_MS (SQLite's busy_timeout); a probe fails after PROBE_QUIET_MS with no commit seen. */
const BUSY_SLICE_MS = 50;
const PROBE_QUIET_MS = 2 * BUSY_SLICE_MS;

type FileOptions = Pick<ResolvedOptions, 'driver' | 'path' | 'busyTimeoutMs' | 'probeIntervalMs' | 'maxKeys'>;

export class SqliteFile implements SyncTransactor {
  readonly #o: FileOptions;
  #db: Connection | undefined;
  #sql: Sql | undefined;
  /** The file's device and inode as opened ('' for a path that names no file, as ':memory:'). */
  #inode = '';
  /** performance.now() before which the file is not tried again (0: none); whether a failure awaits a success. */
  #retryAt = 0;
  #failing = false;
  readonly #recovered: (() => void)[] = [];
  /** The processes last seen on the file, this one included (1 until a beat). */
  peers = 1;
  #beatAt = 0;
  #beating: ReturnType<typeof setInterval> | undefined;

  constructor(options: FileOptions) {
    this.#o = options;
  }

  transact(refs: readonly RowRef[], work: Work, write: boolean): Failure | undefined {
    if (this.#beating === undefined) {
      this.#beating = setInterval(() => performance.now() >= this.#beatAt && this.#retryAt === 0 && this.transact([], () => 0, true), BEAT_MS);
      this.#beating.unref();
    }
    const probing = this.#retryAt !== 0;
    if (probing && performance.now() < this.#retryAt) return UNAVAILABLE;
    let sql: Sql | undefined;
    try {
      const s = (sql = this.#sql ?? this.#open());
      if (write) this.#waitFor(this.#db as Connection, () => s.begin.run(), probing ? Math.min(PROBE_QUIET_MS, this.#o.busyTimeoutMs) : this.#o.busyTimeoutMs);
      else s.beginRead.run();
      if (write && this.#inode !== '' && inodeOf(this.#o.path) !== this.#inode) throw new MovedError();
      const rows: Rows = new Map();
      const stored = readRows(s, refs, rows);
      const at = work(rows, Date.now());
      if (write) writeRows(s, refs, rows, stored, at, this.#o.maxKeys);
      if (write && performance.now() >= this.#beatAt) this.#beat(s);
      s.commit.run();
    } catch (error) {
      return this.#failed(error, sql);
    }
    this.#retryAt = 0;
    if (this.#failing) for (const callback of this.#recovered) callback();
    this.#failing = false;
    return undefined;
  }

  onRecover(callback: () => void): void {
    this.#recovered.push(callback);
  }

  /** close closes the connection (a later call opens it again) and stops the beats until then. */
  close(): void {
    clearInterval(this.#beating);
    this.#beating = undefined;
    const db = this.#db;
    this.#db = this.#sql = undefined;
    quietly(() => db?.close()); // a connection the file failed under may fail to close too
  }

  /** #beat records this process, forgets the silent ones and counts the rest (inside a write transaction). */
  #beat(sql: Sql): void {
    const now = Date.now();
    sql.beat.run(peerId(), now);
    sql.forgetPeers.run(now - MEMBER_TTL_MS);
    this.peers = Math.max(1, sql.peers.get()?.['n'] as number);
    this.#beatAt = performance.now() + BEAT_MS;
  }

  /** #waitFor runs `attempt` (taking the write lock), waiting while others commit: it throws the last BUSY once none did for `quietMs`. */
  #waitFor(db: Connection, attempt: () => void, quietMs: number): void {
    let progressAt = performance.now();
    let version: unknown;
    for (;;) {
      const tried = performance.now();
      try {
        return attempt();
      } catch (error) {
        if (reasonOf(error) !== 'busy') throw error;
        // A driver whose SQLite sleeps only in whole seconds answers BUSY at once: pause rather than spin.
        if (performance.now() - tried < 1) Atomics.wait(SLEEPER, 0, 0, 1 + 2 * Math.random());
        let seen: unknown;
        quietly(() => (seen = db.prepare('PRAGMA data_version').get()?.['data_version'])); // a read can be BUSY too: no news then
        if (version !== undefined && seen !== undefined && seen !== version) progressAt = performance.now();
        version = seen ?? version;
        if (performance.now() - progressAt >= quietMs) throw error;
      }
    }
  }

  #open(): Sql {
    const { driver, path, busyTimeoutMs } = this.#o;
    const db = driver.open(path);
    try {
      // Processes starting together all set the file up: each waits while another is at it.
      this.#waitFor(db, () => setUp(db, Math.min(BUSY_SLICE_MS, busyTimeoutMs)), busyTimeoutMs);
      this.#sql = prepare(db);
    } catch (error) {
      db.close();
      throw error;
    }
    this.#inode = inodeOf(path);
    this.#db = db;
    return this.#sql;
  }

  /** #failed rolls back what is open and answers the Failure; a failure of the file (not 'error') waits for a probe, but 'moved' opens the path again at once. */
  #failed(error: unknown, sql: Sql | undefined): Failure {
    quietly(() => sql?.rollback.run()); // none may be open: it never began, or SQLite rolled it back
    const reason = reasonOf(error);
    this.#failing ||= reason !== 'error';
    if (reason !== 'error' && reason !== 'moved') this.#retryAt = performance.now() + this.#o.probeIntervalMs;
    // A lock held elsewhere is waited out on the same connection; a file failing otherwise may be repaired or replaced.
    if (reason !== 'error' && reason !== 'busy') this.close();
    // The kit passes a reason through unread: SQLite's, not a server's.
    return new Failure(reason as Failure['reason'], error, reason !== 'error');
  }
}

/** inodeOf is the device and inode of the file at `path`, or '' when none is there. */
function inodeOf(path: string): string {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats === undefined ? '' : `${stats.dev}:${stats.ino}`;
}

/** SLEEPER blocks this thread for a pause (the store is synchronous: it waits as SQLite's busy handler does). */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
