/**
 * PostgresStore shares limits between every process that reaches one PostgreSQL database: the
 * database an application already runs, without Redis. Every core limiter accepts it unchanged
 * (`store: new PostgresStore({ client: pool })`) and then answers with promises.
 *
 * It is core's row-store kit (`@ratekeeper/core/store`: RowStore, BatchRunner, SqlTransactor) over
 * PostgreSQL's dialect (./dialect.ts, ./sql.ts): a plain call alone is one statement (the table's
 * decide function), the calls in flight together one transaction that locks their rows in one order,
 * runs core's own steps on them in arrival order and writes the changed rows with its COMMIT; so the
 * decisions are the memory store's for any number of processes. Composites, bans, bookings and
 * concurrency leases are the kit's, in the same transaction. Time is the database's
 * clock_timestamp() by default, or the limiter's clock with `time: 'client'`.
 *
 * Failure is a policy, not an accident (core's Remote and the kit): a busy database is waited for, a
 * lock held by another session up to MAX_WAIT_FACTOR × timeoutMs on a pool of any size, a stopped one
 * fails the calls once their deadline has certainly passed; those calls are decided by `onFailure`
 * ('fallback', default; 'open'; 'closed') and reported through the 'failure' event, or warned once per
 * cause without a listener. No call rejects; no error text reaches a Decision.
 */
import type { FailureInfo } from '@ratekeeper/core/store';
import {
  BatchRunner,
  type FailurePolicy,
  Housekeeping,
  MAX_WAIT_FACTOR,
  MEMBER_TTL_MS,
  Peers,
  Remote,
  RowStore,
  SqlTransactor,
  expiredAt,
  peerId,
  remoteFailureCause,
  sqlFailureOf,
} from '@ratekeeper/core/store';
import { toDb } from './client.js';
import { PostgresDialect, lost, working } from './dialect.js';
import { type PostgresStoreOptions, type TimeSource, resolveOptions } from './options.js';
import { beatSql, sweepSql } from './sql.js';

/** The events a PostgresStore emits (core's FailureEvents): 'failure', once per call the database could not decide. */
export interface PostgresStoreEvents {
  failure: [info: FailureInfo];
}

/** PostgreSQL as the failure warning names it (RATEKEEPER_POSTGRES_…). */
const SERVER = { code: 'POSTGRES', name: 'PostgreSQL', client: 'client' } as const;

export class PostgresStore extends RowStore<'async'> {
  readonly table: string;
  readonly time: TimeSource;
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly #runner: BatchRunner;
  readonly #peers: Peers;

  constructor(options: PostgresStoreOptions) {
    const o = resolveOptions(options);
    let remote: Remote | undefined;
    const alive = (): void => remote?.alive();
    const db = toDb(o.client, lost, (error) => working(error) && alive());
    const dialect = new PostgresDialect(db, o.table, o.createTable, o.unlogged, o.timeoutMs / 2);
    remote = new Remote({
      timeoutMs: o.timeoutMs,
      probeIntervalMs: o.probeIntervalMs,
      failureOf: sqlFailureOf(dialect),
      expiredAt,
      probe: () => ({ deadlined: false, send: () => dialect.ping() }),
    });
    const heard = remote;
    const housekeeping = new Housekeeping(async (before, limit) => Number((await db.query(sweepSql(o.table, before, limit)))[0]?.['n']));
    const giveUpMs = 2 * MAX_WAIT_FACTOR * o.timeoutMs;
    const transactor = new SqlTransactor({ dialect, lockWaitMs: o.timeoutMs / 2, giveUpMs, alive, committed: (at) => housekeeping.committed(at) });
    const runner = new BatchRunner({ remote, transactor, clientTime: o.time === 'client', timeoutMs: o.timeoutMs });
    const beat = async () => {
      await dialect.ready();
      return Number((await db.query(beatSql(o.table, peerId(), MEMBER_TTL_MS)))[0]?.['n']);
    };
    const peers = new Peers(remote, () => ({ deadlined: false, send: beat }));
    if (o.fallbackDivisor === 'peers') remote.onFirstCall(() => peers.start());
    const divisor = o.fallbackDivisor;
    super({
      owner: 'PostgresStore',
      server: SERVER.name,
      runner,
      onFailure: o.onFailure,
      fallbackStore: o.fallbackStore,
      fallbackDivisor: divisor === 'peers' ? () => peers.count : () => divisor,
      leaseTtlMs: o.leaseTtlMs,
      failureWarning: o.failureWarning,
      causeOf: (info) => remoteFailureCause(SERVER, info, o.timeoutMs, heard.heard),
    });
    this.table = o.table;
    this.time = o.time;
    this.timeoutMs = o.timeoutMs;
    this.onFailure = o.onFailure;
    this.#runner = runner;
    this.#peers = peers;
  }

  /** peers is the number of processes last seen deciding on this table (this one included; 1 until a beat has been answered). */
  get peers(): number {
    return this.#peers.count;
  }

  /** batching counts the statements and transactions sent and the calls they carried: calls ÷ batches is the mean batch size. */
  get batching(): { readonly batches: number; readonly calls: number } {
    return { batches: this.#runner.batches, calls: this.#runner.calls };
  }
}
