/**
 * MySqlStore shares limits between processes through a table in MySQL 8 or MariaDB (10.5+), through a
 * mysql2 pool. Every core limiter accepts it unchanged (`store: new MySqlStore({ client: pool })`) and
 * then answers with promises; a CompositeLimiter over limiters of one MySqlStore is decided all or
 * nothing in one transaction.
 *
 * Exactness: the calls in flight together form a batch, decided in one InnoDB transaction that locks
 * the batch's rows in one global order, reads them with the server's clock, runs core's own TypeScript
 * steps on them in arrival order and writes them back (./wire/transaction.ts, ./rows/steps.ts): the decisions
 * are the memory store's, bit for bit, for any number of processes. By default `now` is the database's
 * NOW(6), so no application server's clock skew bends a limit; `time: 'client'` takes the limiter's.
 *
 * Failure is a policy: a call fails when the database has answered nothing for `timeoutMs` while calls
 * waited (a busy database answering a queue is waited for), and what the database cannot decide is
 * decided by `onFailure` ('fallback', default: an in-process limiter enforcing this process's share of
 * the limit; 'open'; 'closed'), never also by the database (its commit is refused past the call's
 * deadline: ./wire/transaction.ts). The Decision says so in `failure`; the store emits 'failure' (never
 * 'error'); no promise rejects for a store failure. Without a 'failure' listener it warns once per
 * process per cause instead (never connected, refused, timed out, an error reply: core's
 * failure-warning.ts), unless `failureWarning: false`.
 *
 * Bans (./bindings/bans.ts) are decided in front of the algorithm in the same transaction. reserve() and wait()
 * book a request at a future instant, and cancel it, in the batch's transaction too, with a booking
 * ledger per key and policy (./bindings/reserve.ts, ./rows/ledger.ts); a booking the database cannot make is refused,
 * never decided by the failure policy. Concurrency leases (ConcurrencyLimiter) are rows of leases that
 * expire on the store's clock (./bindings/leases.ts, `leaseTtlMs`), decided in the batch's transaction too.
 *
 * A policy name is a key namespace in the table: limiters with the same name share their counts, in
 * this process and in every other one; binding one name twice with other parameters throws.
 */
import { EventEmitter } from 'node:events';
import type { Algorithm, Booking, ConcurrencyPolicy, Decision, Policy, Store, StoreBinding } from '@ratekeeper/core';
import {
  type FailureInfo,
  type FailurePolicy,
  type Peers,
  Remote,
  closedDecision,
  failureInfo,
  failureWarner,
  fallbackDecision,
  openDecision,
  remoteFailureCause,
} from '@ratekeeper/core/store';
import { MySqlBans } from './bindings/bans.js';
import { MySqlLeases } from './bindings/leases.js';
import { type Backend, MySqlBinding, asFailure } from './bindings/binding.js';
import { Batcher } from './wire/batcher.js';
import { encodeKey as encodeKeyOf } from './rows/codec.js';
import { MAX_POLICY_NAME, dialect } from './sql/dialect.js';
import { Housekeeping } from './sql/housekeeping.js';
import { PolicyNames } from './names.js';
import { type MySqlStoreOptions, type TimeSource, resolveOptions } from './options.js';
import { mysqlPeers } from './sql/peers.js';
import { book } from './bindings/reserve.js';
import { Schema } from './sql/schema.js';
import type { Member } from './rows/steps.js';
import { expiredAt, failureOf } from './wire/transaction.js';

const OWNER = 'MySqlStore';
/** The database as the failure warning names it (RATEKEEPER_MYSQL_…). */
const SERVER = { code: 'MYSQL', name: 'MySQL', client: 'pool' } as const;
/** MAX_MEMBERS bounds a composite (as on RedisStore). */
const MAX_MEMBERS = 16;

/** Bound is a binding of this store: a rate limit's, or a concurrency limit's leases. */
type Bound = MySqlBinding | MySqlLeases;

export interface MySqlStoreEvents {
  failure: [info: FailureInfo];
}

export class MySqlStore extends EventEmitter<MySqlStoreEvents> implements Store<'async'> {
  readonly mode = 'async';
  readonly table: string;
  readonly time: TimeSource;
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly leaseTtlMs: number;
  readonly #backend: Backend;
  readonly #peers: Peers;
  readonly #names = new PolicyNames();
  readonly #prepared = new WeakMap<readonly StoreBinding<'async'>[], readonly Bound[]>();
  readonly #warn: (info: FailureInfo) => void;

  constructor(options: MySqlStoreOptions) {
    super();
    const o = resolveOptions(options);
    this.table = o.table;
    this.time = o.time;
    this.timeoutMs = o.timeoutMs;
    this.onFailure = o.onFailure;
    this.leaseTtlMs = o.leaseTtlMs;
    const sql = dialect(o.table);
    const remote = new Remote({ timeoutMs: o.timeoutMs, probeIntervalMs: o.probeIntervalMs, failureOf, expiredAt });
    this.#warn = failureWarner({
      owner: OWNER,
      server: SERVER.name,
      onFailure: o.onFailure,
      enabled: o.failureWarning,
      listening: () => this.listenerCount('failure') > 0,
      causeOf: (info) => remoteFailureCause(SERVER, info, o.timeoutMs, remote.heard),
    });
    const schema = new Schema(o.pool, sql.schema, o.createTable);
    const ready = () => schema.ready();
    const housekeeping = new Housekeeping(o.pool, sql);
    this.#peers = mysqlPeers(remote, o.pool, sql, ready);
    remote.onFirstCall(() => this.#peers.start());
    const divisor = o.fallbackDivisor;
    const batcher = new Batcher(remote, { pool: o.pool, sql, clientTime: o.time === 'client', ready, committed: (at) => housekeeping.after(at), clock: { serverMs: 0 } });
    this.#backend = {
      batcher,
      onFailure: o.onFailure,
      fallbackStore: o.fallbackStore,
      fallbackDivisor: divisor === 'peers' ? () => this.#peers.count : () => divisor,
      report: (info) => this.#report(info),
    };
  }

  /** bind prepares a binding of `policy` (a concurrency limit's leases: ./bindings/leases.ts), refused when its name is bound here with other parameters. */
  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): MySqlBinding<P> | MySqlLeases {
    if (algorithm.name !== policy.algorithm) throw new TypeError(`${OWNER}: algorithm ${algorithm.name} cannot decide a ${policy.algorithm} policy`);
    if (policy.name.length > MAX_POLICY_NAME) throw new TypeError(`${OWNER}: policy name "${policy.name}" is longer than ${MAX_POLICY_NAME} characters`);
    const binding =
      policy.algorithm === 'concurrency'
        ? new MySqlLeases(this.#backend, algorithm as unknown as Algorithm<ConcurrencyPolicy>, policy as ConcurrencyPolicy, this.leaseTtlMs)
        : new MySqlBinding(this.#backend, algorithm, policy);
    if (!this.#names.claim(policy.name, JSON.stringify(policy), binding)) {
      throw new TypeError(`${OWNER}: policy name "${policy.name}" is already bound with other parameters; give each limit its own name`);
    }
    return binding;
  }

  /**
   * banned puts a ban in front of one of this store's bindings, decided in the same transaction (./bindings/bans.ts).
   * @internal (BanLimiter calls it)
   */
  banned(binding: StoreBinding<'async'>, banMs: number): MySqlBans {
    if (!(binding instanceof MySqlBinding) || binding.backend !== this.#backend) throw new TypeError(`${OWNER}: bans apply to a rate limit bound to this MySqlStore`);
    return new MySqlBans(binding, banMs);
  }

  /** prepareAll checks a composite once, when CompositeLimiter is built. */
  prepareAll(bindings: readonly StoreBinding<'async'>[]): void {
    if (!this.#prepared.has(bindings)) this.#prepared.set(bindings, this.#prepare(bindings));
  }

  /** consumeAll decides a composite in one transaction, all or nothing; by the failure policy over all when the database cannot. */
  consumeAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, commit: boolean): Promise<readonly Decision[]> {
    const prepared = this.#preparedOf(bindings);
    // A lease member takes its leases with its own work, and records them once the composite is admitted.
    const leases = prepared.map((m) => (m instanceof MySqlLeases ? m.work() : undefined));
    return new Promise((resolve) => {
      this.#backend.batcher.submit({
        kind: commit ? 'consume' : 'peek',
        members: prepared as readonly Member[],
        key: encodeKeyOf(key),
        now,
        cost,
        leases,
        deliver: (decisions, ended) => {
          if (decisions === undefined) return resolve(this.#failedAll(prepared, key, now, cost, commit, ended));
          if (commit && decisions.every((d) => d.allowed)) prepared.forEach((m, i) => m instanceof MySqlLeases && m.taken(key, leases[i] as NonNullable<(typeof leases)[number]>));
          resolve(decisions);
        },
      });
    });
  }

  /**
   * reserveAll books `cost` for `key` on these bindings (one, or a composite's members) at the first
   * instant every one admits it, no earlier than the latest booking on any of them, all or nothing, in
   * one transaction (core's reserve.ts contract; ./bindings/reserve.ts); `maxWaitMs` -1 means no bound.
   */
  reserveAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
    const prepared = this.#preparedOf(bindings);
    const members = prepared.filter((m): m is MySqlBinding => m instanceof MySqlBinding);
    if (members.length !== prepared.length) return Promise.reject(new TypeError(`${OWNER}: a concurrency lease cannot be booked`));
    return book(members, key, now, cost, maxWaitMs);
  }

  /**
   * peers is the number of processes last seen deciding on this table (this one included; 1 until a
   * beat has been answered): with the default `fallbackDivisor`, each process's fallback enforces the
   * limit divided by it while the database cannot decide.
   */
  get peers(): number {
    return this.#peers.count;
  }

  /** failedAll decides a composite the database could not by the failure policy, over all members at once; a lease member records the units it admitted. */
  #failedAll(members: readonly Bound[], key: string, now: number, cost: number, commit: boolean, ended: unknown): readonly Decision[] {
    this.#report(failureInfo(commit ? 'consume' : 'peek', members.map((m) => m.policy.name).join('+'), asFailure(ended)));
    const took = (open: boolean) => members.forEach((m) => m instanceof MySqlLeases && m.fellBack(key, cost, open));
    if (this.onFailure === 'open') {
      if (commit) took(true);
      return members.map((m) => openDecision(m.policy, cost));
    }
    if (this.onFailure === 'closed') return members.map((m) => closedDecision(m.policy));
    const decisions = this.#backend.fallbackStore.consumeAll(
      members.map((m) => m.fallback),
      key,
      now,
      cost,
      commit,
    );
    if (commit && decisions.every((d) => d.allowed)) took(false);
    return decisions.map((d, i) => fallbackDecision(d, (members[i] as Bound).policy));
  }

  #preparedOf(bindings: readonly StoreBinding<'async'>[]): readonly Bound[] {
    let members = this.#prepared.get(bindings);
    if (members === undefined) {
      members = this.#prepare(bindings);
      this.#prepared.set(bindings, members);
    }
    return members;
  }

  #prepare(bindings: readonly StoreBinding<'async'>[]): readonly Bound[] {
    if (bindings.length > MAX_MEMBERS) throw new TypeError(`${OWNER}: a composite has at most ${MAX_MEMBERS} members, got ${bindings.length}`);
    const members = bindings.map((b, i) => {
      if (!(b instanceof MySqlBinding || b instanceof MySqlLeases) || b.backend !== this.#backend)
        throw new TypeError(`${OWNER}: composite member ${i} is not bound to this MySqlStore`);
      return b;
    });
    const names = members.map((m) => m.policy.name);
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice !== undefined) throw new TypeError(`${OWNER}: composite members must have distinct policy names; "${twice}" appears twice`);
    return members;
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
