/**
 * MySqlStore shares limits between every process that reaches one MySQL or MariaDB database, through
 * a mysql2 pool of any size. Every core limiter accepts it (`store: new MySqlStore({ client: pool })`)
 * and then answers with promises.
 *
 * It is core's row-store kit (`@ratekeeper/core/store`: RowStore, BatchRunner, SqlTransactor) over
 * MySQL's dialect (./dialect.ts, ./sql.ts): the calls in flight together are one InnoDB transaction
 * that locks their rows in one order, runs core's own steps on them and commits only before its
 * deadline, so the decisions are the memory store's for any number of processes; composites, bans,
 * bookings, leases, owed refunds, the failure policy and the peer count are the kit's. Time is the
 * database's clock by default, the limiter's with `time: 'client'`. A lock held by another session is
 * waited for up to MAX_WAIT_FACTOR × timeoutMs (each wait bounded on the server, so the database is
 * heard answering); a stopped database fails the calls once their deadline has certainly passed, and
 * `onFailure` decides them, reported through 'failure' (or warned once per cause). No call rejects.
 */
import type { FailureInfo } from '@ratekeeper/core/store';
import { BatchRunner, EXPIRED_GRACE_MS, type FailurePolicy, Housekeeping, MAX_WAIT_FACTOR, MEMBER_TTL_MS, Peers } from '@ratekeeper/core/store';
import { Remote, RowStore, SqlTransactor, expiredAt, peerId, remoteFailureCause, sqlFailureOf } from '@ratekeeper/core/store';
import { MySqlDialect } from './dialect.js';
import { type MySqlStoreOptions, type TimeSource, resolveOptions } from './options.js';

/** The events a MySqlStore emits (core's FailureEvents): 'failure', once per call the database could not decide. */
export interface MySqlStoreEvents {
  failure: [info: FailureInfo];
}

/** The database as the failure warning names it (RATEKEEPER_MYSQL_…). */
const SERVER = { code: 'MYSQL', name: 'MySQL', client: 'pool' } as const;
/** MAX_POLICY_NAME is the longest policy name a row id of the table holds (VARBINARY(1024), with a ledger's suffix and a long key's). */
export const MAX_POLICY_NAME = 191;

export class MySqlStore extends RowStore<'async'> {
  readonly table: string;
  readonly time: TimeSource;
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly leaseTtlMs: number;
  readonly #peers: Peers;

  constructor(options: MySqlStoreOptions) {
    const o = resolveOptions(options);
    let remote: Remote | undefined;
    const alive = (): void => remote?.alive();
    const dialect = new MySqlDialect(o.pool, o.table, o.createTable, alive);
    remote = new Remote({
      timeoutMs: o.timeoutMs,
      probeIntervalMs: o.probeIntervalMs,
      failureOf: sqlFailureOf(dialect),
      expiredAt,
      probe: () => ({ deadlined: false, send: () => dialect.ping() }),
    });
    const heard = remote;
    const lockWaitMs = o.timeoutMs / 2;
    const housekeeping = new Housekeeping((before, limit) => dialect.sweep(before, limit, lockWaitMs, EXPIRED_GRACE_MS));
    const transactor = new SqlTransactor({ dialect, lockWaitMs, giveUpMs: 2 * MAX_WAIT_FACTOR * o.timeoutMs, alive, committed: (at) => housekeeping.committed(at) });
    const runner = new BatchRunner({ remote, transactor, clientTime: o.time === 'client', timeoutMs: o.timeoutMs });
    const peers = new Peers(remote, () => ({ deadlined: false, send: () => dialect.beat(peerId(), MEMBER_TTL_MS) }));
    if (o.fallbackDivisor === 'peers') remote.onFirstCall(() => peers.start());
    const divisor = o.fallbackDivisor;
    super({
      owner: 'MySqlStore',
      server: SERVER.name,
      runner,
      onFailure: o.onFailure,
      fallbackStore: o.fallbackStore,
      fallbackDivisor: divisor === 'peers' ? () => peers.count : () => divisor,
      leaseTtlMs: o.leaseTtlMs,
      failureWarning: o.failureWarning,
      causeOf: (info) => remoteFailureCause(SERVER, info, o.timeoutMs, heard.heard),
      check: (_, policy) => (policy.name.length > MAX_POLICY_NAME ? `policy name "${policy.name}" is longer than ${MAX_POLICY_NAME} characters` : undefined),
    });
    this.table = o.table;
    this.time = o.time;
    this.timeoutMs = o.timeoutMs;
    this.onFailure = o.onFailure;
    this.leaseTtlMs = o.leaseTtlMs;
    this.#peers = peers;
  }

  /** peers is the number of processes last seen deciding on this table (this one included; 1 until a beat has been answered). */
  get peers(): number {
    return this.#peers.count;
  }
}
