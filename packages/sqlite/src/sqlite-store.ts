/**
 * SqliteStore shares limits between every process on one host through one SQLite file: a Node
 * cluster, PM2, a few containers on one VM with the file on a shared volume. Every core limiter
 * accepts it unchanged (`store: new SqliteStore({ path })`) and answers synchronously, as on the
 * memory store: a decision is one short transaction on a local file, microseconds, not a round trip.
 *
 * Exactness: each decision is one immediate transaction (./file.ts) inside which the process runs
 * core's own TypeScript step on the key's state (./binding.ts); composites decide all members in one
 * transaction (./composite.ts). The decisions are the memory store's, bit for bit, for any number of
 * processes. Bans (./bans.ts), concurrency leases that expire by time when their process dies
 * (./leases.ts) and reservations (./reserve.ts) are each one transaction too.
 *
 * Bounds: at most `maxKeys` keys per policy name, expired rows deleted without a scan, and a key flood
 * evicting the keys with the most room first (./table.ts), so the file's size is bounded.
 *
 * Failure is a policy: a file locked beyond `busyTimeoutMs`, a missing or read-only directory, a
 * corrupt file or a failing disk makes the call decided by `onFailure` ('fallback', default: an
 * in-process limiter with the same policy; 'open'; 'closed'), reported through the 'failure' event
 * (never 'error', which would crash a process without a listener); no call throws for it and no error
 * text reaches a Decision. A failed transaction recorded nothing, so no request is counted twice.
 */
import { EventEmitter } from 'node:events';
import type { Algorithm, Booking, ConcurrencyPolicy, Decision, Policy, Store, StoreBinding } from '@ratekeeper/core';
import type { Backend } from './backend.js';
import { type Member, SqliteBinding } from './binding.js';
import { SqliteBans } from './bans.js';
import { SqliteLeases } from './leases.js';
import { Reservations } from './reserve.js';
import { type PreparedMembers, decideAll, prepareMembers } from './composite.js';
import type { DriverName } from './driver.js';
import type { FailureInfo } from './failure.js';
import { SqliteFile } from './file.js';
import { PolicyNames } from './names.js';
import type { FailurePolicy } from '@ratekeeper/core/store';
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
   * banned puts a ban in front of one of this store's bindings, in the same transaction (./bans.ts).
   * @internal (BanLimiter calls it)
   */
  banned(binding: StoreBinding<'sync'>, banMs: number): SqliteBans {
    if (!(binding instanceof SqliteBinding) || binding.backend !== this.#backend) throw new TypeError('SqliteStore: bans apply to a rate limit bound to this SqliteStore');
    return new SqliteBans(binding, banMs);
  }

  /** prepareAll checks a composite once, when CompositeLimiter is built (./composite.ts). */
  prepareAll(bindings: readonly StoreBinding<'sync'>[]): void {
    if (!this.#prepared.has(bindings)) this.#prepared.set(bindings, prepareMembers(this.#backend, bindings, isMember));
  }

  /** consumeAll decides a composite in one transaction, all or nothing (./composite.ts). */
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
   * transaction that runs the memory store's booking code (./reserve.ts).
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
   * limit divided by it while the file cannot decide (./peers.ts).
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

  /** A listener that throws is the caller's bug: it surfaces as an uncaught exception, not in a decision. */
  #report(info: FailureInfo): void {
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
