/**
 * SqliteStore shares limits between every process on one host through one SQLite file: a Node
 * cluster, PM2, a few containers on one VM with the file on a shared volume. Every core limiter
 * accepts it unchanged (`store: new SqliteStore({ path })`) and answers synchronously, as on the
 * memory store: a decision is one short transaction on a local file, microseconds, not a round trip.
 *
 * Exactness: each decision is one immediate transaction (./file/file.ts) inside which the process runs
 * core's own TypeScript step on the key's state (./bindings/binding.ts); composites decide all members in one
 * transaction (./bindings/composite.ts). The decisions are the memory store's, bit for bit, for any number of
 * processes. Bans (./bindings/bans.ts), concurrency leases that expire by time when their process dies
 * (./bindings/leases.ts) and reservations (./bindings/reserve.ts) are each one transaction too.
 *
 * Bounds: at most `maxKeys` keys per policy name, expired rows deleted without a scan, and a key flood
 * evicting the keys with the most room first (./rows/table.ts), so the file's size is bounded.
 *
 * Failure is a policy: a file locked beyond `busyTimeoutMs`, a missing or read-only directory, a
 * corrupt file or a failing disk makes the call decided by `onFailure` ('fallback', default: an
 * in-process limiter with the same policy; 'open'; 'closed'), reported through the 'failure' event
 * (never 'error', which would crash a process without a listener); no call throws for it and no error
 * text reaches a Decision. A failed transaction recorded nothing, so no request is counted twice.
 * Without a 'failure' listener the store warns once per process per cause instead (a path it cannot
 * open or write, a lock held beyond busyTimeoutMs, a corrupt file, a failing disk: ./file/failure-cause.ts),
 * unless `failureWarning: false`.
 */
import { EventEmitter } from 'node:events';
import type { Algorithm, Booking, ConcurrencyPolicy, Decision, Policy, Store, StoreBinding } from '@ratekeeper/core';
import type { Backend } from './bindings/backend.js';
import { type Member, SqliteBinding } from './bindings/binding.js';
import { SqliteBans } from './bindings/bans.js';
import { SqliteLeases } from './bindings/leases.js';
import { Reservations } from './bindings/reserve.js';
import { type PreparedMembers, decideAll, prepareMembers } from './bindings/composite.js';
import type { DriverName } from './file/driver.js';
import type { FailureInfo } from './file/failure.js';
import { SqliteFile } from './file/file.js';
import { PolicyNames } from './names.js';
import { type FailurePolicy, failureWarner } from '@ratekeeper/core/store';
import { causeOf } from './file/failure-cause.js';
import { type SqliteStoreOptions, resolveOptions } from './options.js';

export interface SqliteStoreEvents {
  failure: [info: FailureInfo];
}

export class SqliteStore extends EventEmitter<SqliteStoreEvents> implements Store<'sync'> {
  readonly mode = 'sync';
  readonly path: string;
  /** The driver in use: 'better-sqlite3', 'bun:sqlite' or 'node:sqlite'. */
  readonly driver: DriverName;
  readonly busyTimeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly maxKeys: number;
  readonly leaseTtlMs: number;
  readonly #backend: Backend;
  readonly #names = new PolicyNames();
  readonly #prepared = new WeakMap<readonly StoreBinding<'sync'>[], PreparedMembers>();
  readonly #reservations: Reservations;
  readonly #warn: (info: FailureInfo) => void;

  constructor(options: SqliteStoreOptions) {
    super();
    const o = resolveOptions(options);
    this.path = o.path;
    this.driver = o.driver.name;
    this.busyTimeoutMs = o.busyTimeoutMs;
    this.onFailure = o.onFailure;
    this.maxKeys = o.maxKeys;
    this.leaseTtlMs = o.leaseTtlMs;
    const file = new SqliteFile(o.driver, o.path, o.busyTimeoutMs, o.probeIntervalMs);
    this.#warn = failureWarner({
      owner: 'SqliteStore',
      server: 'the SQLite file',
      onFailure: o.onFailure,
      enabled: o.failureWarning,
      listening: () => this.listenerCount('failure') > 0,
      causeOf: (info) => causeOf(info, o.path, o.busyTimeoutMs),
    });
    const divisor = o.fallbackDivisor;
    this.#backend = {
      file,
      onFailure: o.onFailure,
      fallbackStore: o.fallbackStore,
      fallbackDivisor: divisor === 'peers' ? () => file.peers.count : () => divisor,
      maxKeys: o.maxKeys,
      leaseTtlMs: o.leaseTtlMs,
      report: (info) => this.#report(info),
    };
    this.#reservations = new Reservations(this.#backend);
  }

  /**
   * bind prepares a binding of `policy` (refused when its name is bound here with other parameters).
   * @internal (limiters call it)
   */
  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): P extends ConcurrencyPolicy ? SqliteLeases : SqliteBinding<P>;
  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): SqliteBinding<P> | SqliteLeases {
    if (algorithm.name !== policy.algorithm) throw new TypeError(`SqliteStore: algorithm ${algorithm.name} cannot decide a ${policy.algorithm} policy`);
    const binding =
      policy.algorithm === 'concurrency'
        ? new SqliteLeases(this.#backend, algorithm as unknown as Algorithm<ConcurrencyPolicy>, policy)
        : new SqliteBinding(this.#backend, algorithm, policy);
    this.#claim(policy, binding);
    return binding;
  }

  /**
   * banned puts a ban in front of one of this store's bindings, in the same transaction (./bindings/bans.ts).
   * @internal (BanLimiter calls it)
   */
  banned(binding: StoreBinding<'sync'>, banMs: number): SqliteBans {
    if (!(binding instanceof SqliteBinding) || binding.backend !== this.#backend) throw new TypeError('SqliteStore: bans apply to a rate limit bound to this SqliteStore');
    return new SqliteBans(binding, banMs);
  }

  /** prepareAll checks a composite once, when CompositeLimiter is built (./bindings/composite.ts). */
  prepareAll(bindings: readonly StoreBinding<'sync'>[]): void {
    if (!this.#prepared.has(bindings)) this.#prepared.set(bindings, prepareMembers(this.#backend, bindings, isMember));
  }

  /** consumeAll decides a composite in one transaction, all or nothing (./bindings/composite.ts). */
  consumeAll(bindings: readonly StoreBinding<'sync'>[], key: string, now: number, cost: number, commit: boolean): readonly Decision[] {
    let prepared = this.#prepared.get(bindings);
    if (prepared === undefined) {
      prepared = prepareMembers(this.#backend, bindings, isMember);
      this.#prepared.set(bindings, prepared);
    }
    return decideAll(this.#backend, prepared, key, now, cost, commit);
  }

  /**
   * reserveAll books a request for one binding or a composite's (core's reserve.ts contract) in one
   * transaction that runs the memory store's booking code (./bindings/reserve.ts).
   */
  reserveAll(bindings: readonly StoreBinding<'sync'>[], key: string, now: number, cost: number, maxWaitMs: number): Booking<'sync'> {
    const members = bindings.map((b, i) => {
      if (!(b instanceof SqliteBinding) || b.backend !== this.#backend) throw new TypeError(`SqliteStore: reserve member ${i} is not a rate limit bound to this SqliteStore`);
      return b;
    });
    return this.#reservations.book(members, key, now, cost, maxWaitMs);
  }

  /**
   * peers is the number of processes last seen deciding on this file (this one included; 1 until a
   * beat has been recorded): with the default `fallbackDivisor`, each process's fallback enforces the
   * limit divided by it while the file cannot decide (./file/peers.ts).
   */
  get peers(): number {
    return this.#backend.file.peers.count;
  }

  /** close closes this process's connection to the file (a later call opens it again). */
  close(): void {
    this.#backend.file.close();
  }

  #claim(policy: Policy, binding: object): void {
    if (!this.#names.claim(policy.name, JSON.stringify(policy), binding)) {
      throw new TypeError(`SqliteStore: policy name "${policy.name}" is already bound with other parameters; give each limit its own name`);
    }
  }

  /**
   * #report emits 'failure', or, when nobody listens, warns once per process per cause (./file/failure-cause.ts).
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

function isMember(binding: unknown): binding is Member {
  return binding instanceof SqliteBinding || binding instanceof SqliteLeases;
}
