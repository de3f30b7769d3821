/**
 * RowStore: the Store contract (store.ts) for every store that keeps its state in rows, written once.
 * A store package supplies a Runner (how an op reaches its rows atomically: ./runner.ts) and its
 * failure options; RowStore gives it every capability of the contract over that one primitive:
 *
 * - every core rate algorithm, with peek, refund and reset (./binding.ts);
 * - composites, all or nothing in one op (./composite.ts);
 * - bans in front of a rate limit, in the same op (`banned`: ./binding.ts, RowBans);
 * - bookings and their cancels (`reserveAll`: ./bookings.ts, ./book.ts);
 * - concurrency leases that expire on the store's clock (./leases.ts), unless the store keeps none
 *   (`leaseTtlMs` undefined: ConcurrencyLimiter refused at construction, by name);
 * - policy names: one name, one set of parameters, forgotten when no binding holds it (./names.ts);
 * - the failure policy and refunds owed across an outage (./engine.ts).
 *
 * A store class extends RowStore, adding what is its own (options, its client, its figures); it also
 * has the 'failure' event (./events.ts): each call the store could not decide is reported there, or,
 * with no listener, warned once per process per cause (core's failure-warning.ts) unless the store's
 * `failureWarning` option is false. Nothing here asks which store it runs on.
 */
import type { Algorithm } from '../../algorithm.js';
import type { Decision } from '../../decision.js';
import type { ConcurrencyPolicy, Policy } from '../../policy.js';
import type { Booking, Mode, Result, Store, StoreBinding } from '../contract.js';
import { RowBans, RowBinding } from './binding.js';
import { bookAll } from './bookings.js';
import { type Prepared, decideAll, prepareMembers } from './composite.js';
import { type EngineOptions, RowEngine } from './engine.js';
import { RowLeases } from './leases.js';
import { type FailureCause, failureWarner } from '../remote/failure-warning.js';
import type { FailureInfo } from '../remote/failure.js';
import { FailureEvents } from './events.js';
import { PolicyNames } from './names.js';
import { LEDGER_SUFFIX, MAX_NAME_LENGTH } from './row-id.js';

export interface RowStoreOptions<M extends Mode> extends Omit<EngineOptions<M>, 'report'> {
  /** What could not decide, as the failure warning names it ('PostgreSQL', 'the SQLite file'). */
  readonly server: string;
  /** The store's `failureWarning` option. */
  readonly failureWarning: boolean;
  /** causeOf names a failure's cause for the warning (undefined: one that only follows another). */
  causeOf(info: FailureInfo): FailureCause | undefined;
  /** reportAs, when given, is how the store names a failure to its listeners and its warning (a reason of its own). */
  reportAs?(info: FailureInfo): FailureInfo;
}

/** RowStoreOptionsOf is RowStoreOptions for a store whose listeners hear `Info` (a FailureInfo with reasons of its own). */
export interface RowStoreOptionsOf<M extends Mode, Info> extends Omit<RowStoreOptions<M>, 'causeOf' | 'reportAs'> {
  causeOf(info: Info): FailureCause | undefined;
  reportAs?(info: FailureInfo): Info;
  /** Why ConcurrencyLimiter is refused, when `leaseTtlMs` is undefined (the message must say 'lease'). */
  readonly leaseRefusal?: string;
  /** check refuses an algorithm the store cannot run (a TypeError's message), or answers undefined. */
  check?(algorithm: Algorithm<Policy>, policy: Policy): string | undefined;
}

export class RowStore<M extends Mode, Info = FailureInfo> extends FailureEvents<Info> implements Store<M> {
  readonly mode: M;
  /** @internal */
  readonly engine: RowEngine<M>;
  readonly #options: RowStoreOptionsOf<M, Info>;
  readonly #names = new PolicyNames();
  readonly #prepared = new WeakMap<readonly StoreBinding<M>[], Prepared<M>>();

  constructor(options: RowStoreOptionsOf<M, Info>) {
    super();
    this.#options = options;
    const warn = failureWarner<Info>({ ...options, enabled: options.failureWarning, listening: () => this.listenerCount('failure') > 0 });
    this.engine = new RowEngine({
      ...options,
      report: (reported) => {
        const info = options.reportAs === undefined ? (reported as Info) : options.reportAs(reported);
        warn(info);
        this.emitFailure(info);
      },
    });
    this.mode = options.runner.mode;
  }

  /** names is how many policy names are bound here now (tests: a name no binding holds is forgotten). */
  get names(): number {
    return this.#names.size;
  }

  /** bind prepares a binding of `policy`, refused for a name bound here with other parameters. */
  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): StoreBinding<M> {
    const { owner } = this.engine;
    if (algorithm.name !== policy.algorithm) throw new TypeError(`${owner}: algorithm ${algorithm.name} cannot decide a ${policy.algorithm} policy`);
    const longest = MAX_NAME_LENGTH - LEDGER_SUFFIX.length;
    if (policy.name.length > longest) throw new TypeError(`${owner}: policy names are at most ${longest} characters, got ${policy.name.length}`);
    const refused = this.#options.check?.(algorithm as unknown as Algorithm<Policy>, policy);
    if (refused !== undefined) throw new TypeError(`${owner}: ${refused}`);
    const ttlMs = this.engine.leaseTtlMs;
    if (policy.algorithm === 'concurrency' && ttlMs === undefined) throw new TypeError(`${owner}: ${this.#options.leaseRefusal ?? 'keeps no concurrency leases'}`);
    const binding =
      policy.algorithm === 'concurrency'
        ? new RowLeases(this.engine, algorithm as unknown as Algorithm<ConcurrencyPolicy>, policy as ConcurrencyPolicy, ttlMs as number)
        : new RowBinding(this.engine, algorithm, policy);
    if (!this.#names.claim(policy.name, JSON.stringify(policy), binding)) {
      throw new TypeError(`${owner}: policy name "${policy.name}" is already bound with other parameters; give each limit its own name`);
    }
    return binding;
  }

  /** banned puts a ban of `banMs` in front of one of this store's rate bindings, decided in the same op (core's ban.ts). */
  banned(binding: StoreBinding<M>, banMs: number): StoreBinding<M> {
    const { owner } = this.engine;
    if (!(binding instanceof RowBinding) || binding.engine !== this.engine) throw new TypeError(`${owner}: bans apply to a rate limit bound to this ${owner}`);
    return new RowBans(binding as RowBinding<M>, banMs);
  }

  /** prepareAll checks a composite once, when CompositeLimiter is built (./composite.ts). */
  prepareAll(bindings: readonly StoreBinding<M>[]): void {
    this.#preparedOf(bindings);
  }

  /** consumeAll decides a composite in one op, all or nothing. */
  consumeAll(bindings: readonly StoreBinding<M>[], key: string, now: number, cost: number, commit: boolean): Result<M, readonly Decision[]> {
    let prepared: Prepared<M>;
    try {
      prepared = this.#preparedOf(bindings);
    } catch (error) {
      return this.#refuse(error);
    }
    return decideAll(this.engine, prepared, key, now, cost, commit);
  }

  /** reserveAll books `cost` for `key` on these bindings at the first instant every one admits it (core's reserve.ts); `maxWaitMs` -1: no bound. */
  reserveAll(bindings: readonly StoreBinding<M>[], key: string, now: number, cost: number, maxWaitMs: number): Result<M, Booking<M>> {
    let members: RowBinding<M>[];
    try {
      const prepared = this.#preparedOf(bindings);
      members = prepared.members.filter((m): m is RowBinding<M> => m instanceof RowBinding);
      if (members.length !== prepared.members.length) throw new TypeError(`${this.engine.owner}: a concurrency lease cannot be reserved`);
    } catch (error) {
      return this.#refuse(error);
    }
    return bookAll(this.engine, members, key, now, cost, maxWaitMs);
  }

  #preparedOf(bindings: readonly StoreBinding<M>[]): Prepared<M> {
    let prepared = this.#prepared.get(bindings);
    if (prepared === undefined) {
      prepared = prepareMembers(this.engine, bindings);
      this.#prepared.set(bindings, prepared);
    }
    return prepared;
  }

  /** refuse throws `error` on a synchronous store and rejects with it on an asynchronous one (a caller's mistake, not a store failure). */
  #refuse<T>(error: unknown): Result<M, T> {
    if (this.mode === 'sync') throw error;
    return Promise.reject(error) as Result<M, T>;
  }
}
