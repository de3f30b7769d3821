/**
 * PostgresStore shares limits between every process that reaches one PostgreSQL database: the
 * database an application already runs, without Redis. Every core rate limiter accepts it unchanged
 * (`store: new PostgresStore({ client: pool })`) and then answers with promises.
 *
 * Exactness: the calls in flight together leave as one batch (./wire/batcher.ts), and a batch is one
 * transaction (./wire/transaction.ts) that locks its rows in key order, runs core's own TypeScript steps on
 * them in arrival order (./rows/apply.ts) and writes the changed rows back with its COMMIT. A row lock
 * serializes every process's batches on a key, so the decisions are the memory store's, whatever the
 * number of processes; composites decide all members in one op (./bindings/composite.ts), all or nothing.
 * Time is the database's clock_timestamp() by default (no app server's clock can bend a limit), or
 * the limiter's clock with `time: 'client'`.
 *
 * Capabilities: every core rate algorithm (token bucket, GCRA, sliding window, fixed window, sliding
 * log), composites, peek, refund, reset, and bans (BanLimiter: `banned`, ./bindings/bans.ts), decided in
 * front of the algorithm in the same op of the same transaction, and reserve/wait (`reserveAll`:
 * the memory store's booking code run on the locked rows, ./bindings/reserve.ts), and concurrency leases that
 * expire on the store's clock when their process stops renewing them (./bindings/leases.ts).
 *
 * Failure is a policy, not an accident: every batch runs through core's Remote, which waits for a busy
 * database (one answering a queue) and fails the calls of a stopped one once their deadline has
 * certainly passed, so no call is decided both locally and by the database (./wire/transaction.ts). The
 * calls are then decided by `onFailure` ('fallback', default: an in-process limiter with the
 * policy's share of the limit, divided by the processes last seen; 'open'; 'closed') and reported
 * through the 'failure' event; no call rejects and no error text reaches a Decision. Without a
 * 'failure' listener the store warns once per process per cause instead (never connected, refused,
 * timed out, an error reply: core's failure-warning.ts), unless `failureWarning: false`.
 */
import { EventEmitter } from 'node:events';
import type { Algorithm, Bans, Booking, ConcurrencyPolicy, Decision, Policy, Store, StoreBinding } from '@ratekeeper/core';
import { MEMBER_TTL_MS, MAX_WAIT_FACTOR, Peers, Remote, type FailureInfo, type FailurePolicy, failureWarner, peerId, remoteFailureCause } from '@ratekeeper/core/store';
import type { Backend } from './bindings/backend.js';
import { BAN_SUFFIX, PostgresBans } from './bindings/bans.js';
import { Batcher, expiredAt } from './wire/batcher.js';
import { PostgresBinding } from './bindings/binding.js';
import { PostgresLeases } from './bindings/leases.js';
import { type PreparedMembers, decideAll, prepareMembers } from './bindings/composite.js';
import { failureOf } from './wire/failure.js';
import { type PostgresStoreOptions, type TimeSource, resolveOptions } from './options.js';
import { MAX_NAME_LENGTH } from './rows/keys.js';
import { Bookings } from './bindings/reserve.js';
import { Schema } from './sql/schema.js';
import { beatSql } from './sql/sql.js';
import { Sweeper } from './sql/sweep.js';

export interface PostgresStoreEvents {
  failure: [info: FailureInfo];
}

const OWNER = 'PostgresStore';
/** PostgreSQL as the failure warning names it (RATEKEEPER_POSTGRES_…). */
const SERVER = { code: 'POSTGRES', name: 'PostgreSQL', client: 'client' } as const;

export class PostgresStore extends EventEmitter<PostgresStoreEvents> implements Store<'async'>, Bans<'async'> {
  readonly mode = 'async';
  readonly table: string;
  readonly time: TimeSource;
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly #backend: Backend;
  readonly #batcher: Batcher;
  readonly #peers: Peers;
  readonly #names = new Map<string, string>();
  readonly #prepared = new WeakMap<readonly StoreBinding<'async'>[], PreparedMembers>();
  readonly #bookings = new Bookings();
  readonly #leaseTtlMs: number;
  readonly #warn: (info: FailureInfo) => void;

  constructor(options: PostgresStoreOptions) {
    super();
    const o = resolveOptions(options);
    this.table = o.table;
    this.time = o.time;
    this.timeoutMs = o.timeoutMs;
    this.onFailure = o.onFailure;
    this.#leaseTtlMs = o.leaseTtlMs;
    const { db, table } = o;
    const remote = new Remote({ timeoutMs: o.timeoutMs, probeIntervalMs: o.probeIntervalMs, failureOf, expiredAt });
    this.#warn = failureWarner({
      owner: OWNER,
      server: SERVER.name,
      onFailure: o.onFailure,
      enabled: o.failureWarning,
      listening: () => this.listenerCount('failure') > 0,
      causeOf: (info) => remoteFailureCause(SERVER, info, o.timeoutMs, remote.heard),
    });
    // Every answer of the database along the way tells Remote it is working (./wire/transaction.ts, ./wire/client.ts).
    const alive = (): void => remote.alive();
    db.onAnswer(alive);
    const schema = new Schema(db, table, o.createTable, o.unlogged);
    const sweeper = new Sweeper(db, table);
    this.#batcher = new Batcher(
      remote,
      {
        db,
        table,
        clientTime: o.time === 'client',
        giveUpMs: 2 * MAX_WAIT_FACTOR * o.timeoutMs,
        ready: () => schema.ready(),
        committed: (timeMs) => sweeper.committed(timeMs),
        alive,
      },
      o.timeoutMs,
    );
    const beat = async () => {
      await schema.ready();
      return Number((await db.query(beatSql(table, peerId(), MEMBER_TTL_MS)))[0]?.['n']);
    };
    this.#peers = new Peers(remote, () => ({ deadlined: false, send: beat }));
    if (o.fallbackDivisor === 'peers') remote.onFirstCall(() => this.#peers.start());
    const divisor = o.fallbackDivisor;
    this.#backend = {
      batcher: this.#batcher,
      onFailure: o.onFailure,
      fallbackStore: o.fallbackStore,
      fallbackDivisor: divisor === 'peers' ? () => this.#peers.count : () => divisor,
      report: (info) => this.#report(info),
    };
  }

  /** bind prepares a binding of `policy` (a concurrency limit's leases: ./bindings/leases.ts), refused for a name bound here with other parameters. */
  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): PostgresBinding<P> | PostgresLeases {
    if (policy.name.length > MAX_NAME_LENGTH) throw new TypeError(`${OWNER}: policy names are at most ${MAX_NAME_LENGTH} characters, got ${policy.name.length}`);
    if (algorithm.name !== policy.algorithm) throw new TypeError(`${OWNER}: algorithm ${algorithm.name} cannot decide a ${policy.algorithm} policy`);
    const signature = JSON.stringify(policy);
    const known = this.#names.get(policy.name);
    if (known !== undefined && known !== signature) {
      throw new TypeError(`${OWNER}: policy name "${policy.name}" is already bound with other parameters; give each limit its own name`);
    }
    this.#names.set(policy.name, signature);
    if (policy.algorithm === 'concurrency')
      return new PostgresLeases(this.#backend, algorithm as unknown as Algorithm<ConcurrencyPolicy>, policy as ConcurrencyPolicy, this.#leaseTtlMs);
    return new PostgresBinding(this.#backend, algorithm, policy);
  }

  /**
   * banned puts a ban of `banMs` in front of one of this store's bindings, decided in the same transaction (./bindings/bans.ts).
   * @internal BanLimiter calls it.
   */
  banned(binding: StoreBinding<'async'>, banMs: number): PostgresBans {
    if (!(binding instanceof PostgresBinding) || binding.backend !== this.#backend) throw new TypeError(`${OWNER}: bans apply to a rate limit bound to this PostgresStore`);
    if (binding.policy.name.length + BAN_SUFFIX.length > MAX_NAME_LENGTH) {
      throw new TypeError(`${OWNER}: a banned policy's name is at most ${MAX_NAME_LENGTH - BAN_SUFFIX.length} characters, got ${binding.policy.name.length}`);
    }
    return new PostgresBans(binding, banMs);
  }

  /** prepareAll checks a composite once, when CompositeLimiter is built (./bindings/composite.ts). */
  prepareAll(bindings: readonly StoreBinding<'async'>[]): void {
    this.#preparedOf(bindings);
  }

  /** preparedOf is `bindings`, checked and prepared, made once (it throws for bindings this store cannot decide together). */
  #preparedOf(bindings: readonly StoreBinding<'async'>[]): PreparedMembers {
    let prepared = this.#prepared.get(bindings);
    if (prepared === undefined) {
      prepared = prepareMembers(this.#backend, bindings);
      this.#prepared.set(bindings, prepared);
    }
    return prepared;
  }

  /** consumeAll decides a composite in one transaction, all or nothing (./bindings/composite.ts). */
  consumeAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, commit: boolean): Promise<readonly Decision[]> {
    let prepared: PreparedMembers;
    try {
      prepared = this.#preparedOf(bindings);
    } catch (error) {
      return Promise.reject(error);
    }
    return decideAll(this.#backend, prepared, key, now, cost, commit);
  }

  /**
   * reserveAll books `cost` for `key` on these bindings (one, or a composite's members) at the first
   * instant every one admits it, no earlier than the latest booking on any of them, all or nothing, in
   * one transaction (core's reserve.ts contract; ./bindings/reserve.ts); `maxWaitMs` -1 means no bound.
   */
  reserveAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
    let prepared: PreparedMembers;
    try {
      prepared = this.#preparedOf(bindings);
    } catch (error) {
      return Promise.reject(error);
    }
    const members = prepared.members.filter((m): m is PostgresBinding => m instanceof PostgresBinding);
    if (members.length !== prepared.members.length) return Promise.reject(new TypeError(`${OWNER}: a concurrency lease cannot be booked`));
    return this.#bookings.book(members, key, now, cost, maxWaitMs);
  }

  /**
   * peers is the number of processes last seen deciding on this table (this one included; 1 until a
   * beat has been answered): with the default `fallbackDivisor`, each process's fallback enforces the
   * limit divided by it while the database cannot decide.
   */
  get peers(): number {
    return this.#peers.count;
  }

  /** batching counts the transactions sent and the calls they carried: calls ÷ batches is the mean batch size. */
  get batching(): { readonly batches: number; readonly calls: number } {
    return { batches: this.#batcher.batches, calls: this.#batcher.calls };
  }

  /**
   * #report emits 'failure', or, when nobody listens, warns once per process per cause (core's failure-warning.ts).
   * A listener that throws is the caller's bug: it surfaces as an uncaught exception, not in a decision.
   */
  #report(info: FailureInfo): void {
    this.#warn(info);
    try {
      this.emit('failure', info);
    } catch (error) {
      process.nextTick(() => {
        throw error;
      });
    }
  }
}
