/**
 * SqliteStore shares limits between the processes of one host through one SQLite file, synchronously,
 * as the memory store decides. It is core's row-store kit (a RowStore over a SyncRunner: steps,
 * composites, bans, bookings, leases, names, owed refunds, the failure policy and the 'failure' event)
 * over one primitive, an immediate transaction on a call's rows (./file.ts), so its decisions are the
 * memory store's for any number of processes. A call the file cannot decide is decided by `onFailure`
 * and reported through 'failure', or warned once per process per cause without a listener.
 */
import { type FailurePolicy, RowStore, SyncRunner } from '@ratekeeper/core/store';
import type { DriverName } from './driver.js';
import { type FailureInfo, causeOf } from './failure.js';
import { SqliteFile } from './file.js';
import { type SqliteStoreOptions, resolveOptions } from './options.js';

/** The events a SqliteStore emits (core's FailureEvents): 'failure', once per call the file could not decide. */
export interface SqliteStoreEvents {
  failure: [info: FailureInfo];
}

export class SqliteStore extends RowStore<'sync', FailureInfo> {
  readonly path: string;
  /** The driver in use: 'better-sqlite3', 'bun:sqlite' or 'node:sqlite'. */
  readonly driver: DriverName;
  readonly busyTimeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly maxKeys: number;
  readonly leaseTtlMs: number;
  readonly #file: SqliteFile;

  constructor(options: SqliteStoreOptions) {
    const o = resolveOptions(options);
    const file = new SqliteFile(o);
    const divisor = o.fallbackDivisor;
    super({
      owner: 'SqliteStore',
      server: 'the SQLite file',
      runner: new SyncRunner(file),
      onFailure: o.onFailure,
      fallbackStore: o.fallbackStore,
      fallbackDivisor: () => (divisor === 'peers' ? file.peers : divisor),
      leaseTtlMs: o.leaseTtlMs,
      failureWarning: o.failureWarning,
      causeOf: (info) => causeOf(info as FailureInfo, o.path, o.busyTimeoutMs),
    });
    ({ path: this.path, busyTimeoutMs: this.busyTimeoutMs, onFailure: this.onFailure, maxKeys: this.maxKeys, leaseTtlMs: this.leaseTtlMs } = o);
    this.driver = o.driver.name;
    this.#file = file;
  }

  /** peers is the number of processes last seen on this file (this one included): the default fallback divides by it. */
  get peers(): number {
    return this.#file.peers;
  }

  /** close closes this process's connection to the file (a later call opens it again). */
  close(): void {
    this.#file.close();
  }
}
