/**
 * RedisStore shares limits across processes through Redis, Valkey or a Redis Cluster. Every core
 * limiter accepts it unchanged (`store: new RedisStore({ client })`) and then answers with promises;
 * a CompositeLimiter over limiters sharing one RedisStore is decided in one atomic script call.
 *
 * Each decision is one EVALSHA of a Lua port of the algorithm's TypeScript step, which stays the
 * specification: given the same `now` the two reach bit-identical decisions. By default the script
 * reads `now` from the server's TIME, so no application server's clock skew can bend a limit;
 * `time: 'client'` passes the limiter's clock instead (deterministic tests); every script still reads
 * TIME for its deadline (see ./transport/remote.ts).
 * Keys are `${prefix}${policy}:{${key}}` (see ./keys.ts), each with a TTL equal to the time until its
 * state is empty.
 *
 * Failure is a policy, not an accident: a call fails when Redis has answered nothing for `timeoutMs`
 * (a busy Redis answering a queue is waited for), and what Redis cannot decide (timeout, lost
 * connection, error reply) is decided by `onFailure`, never also by Redis (script deadlines, see
 * ./transport/remote.ts): 'fallback' (default: an
 * in-process limiter with the same policy), 'open' (admit) or 'closed' (deny; adapters answer 503).
 * The Decision says so in `failure`; the store emits 'failure' with a FailureInfo (never 'error', which
 * would crash a process without a listener); no promise ever rejects for a store failure. Without a
 * 'failure' listener it warns once per process per cause instead (a client never connected, refused,
 * timed out: ./failure-warning.ts), unless `failureWarning: false`.
 *
 * Lease mode (./lease/leased.ts, LeasedLimiter) wraps a token bucket on this store so that each process
 * decides locally on units it took from the shared bucket; `leasing` counts its takes and returns.
 *
 * A ConcurrencyLimiter's leases live in a sorted set per key, each lease expiring `leaseTtlMs`
 * (default 30 s) after it was taken unless this process, still alive, renews it (every leaseTtlMs / 3):
 * the leases of a crashed process expire by themselves (./concurrency/concurrency-binding.ts). A composite with
 * concurrency members takes its leases first and its rates after (./concurrency/concurrency-composite.ts).
 *
 * A policy name is a key namespace: limiters with the same name share their counts, in this process
 * and in every other one (in one process, core refuses two limiters that would share a name they did
 * not give: core's store-names.ts). Binding one name twice with different parameters throws (while a binding
 * with the first parameters is alive: core's PolicyNames). A composite is checked when CompositeLimiter is
 * built (prepareAll): more than 16 members, or members of another store, throw there, never from
 * consume.
 */
import { EventEmitter } from 'node:events';
import type { Algorithm, Booking, ConcurrencyPolicy, Decision, Policy, StoreBinding, Store } from '@ratekeeper/core';
import { RedisBans } from './ban-binding.js';
import { type Backend, RedisBinding, scriptParams } from './binding.js';
import { type PreparedMembers, decideComposite, prepareMembers } from './composite.js';
import { type FailureInfo, type FailurePolicy, Fallback, type FallbackStore, Owed, type Peers, UNAVAILABLE, failureInfo, failureWarner } from '@ratekeeper/core/store';
import { causeOf } from './failure-warning.js';
import { STEPS, type StepName } from './lua/scripts.js';
import { type RedisStoreOptions, type TimeSource, resolveOptions } from './options.js';
import { Batcher } from './transport/batcher.js';
import { DenyCache } from './transport/deny-cache.js';
import { redisPeers } from './transport/peers.js';
import { leaseCounters } from './lease/lease-calls.js';
import { PolicyNames } from '@ratekeeper/core/store';
import { RedisConcurrency } from './concurrency/concurrency-binding.js';
import { type PreparedConcurrency, decideWithConcurrency, hasConcurrency, prepareConcurrency } from './concurrency/concurrency-composite.js';
import { watchLink } from './transport/link.js';
import { RedisRemote } from './transport/remote.js';
import { type PreparedReserve, bookOnRedis, prepareReserve } from './reserve.js';
import { slotOf } from './transport/slot.js';

/** MAX_LEASES bounds a concurrency limit on Redis: each unit in flight is one member of a sorted set. */
const MAX_LEASES = 100_000;

export interface RedisStoreEvents {
  failure: [info: FailureInfo];
}

export class RedisStore extends EventEmitter<RedisStoreEvents> implements Store<'async'> {
  readonly mode = 'async';
  readonly prefix: string;
  readonly time: TimeSource;
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly #backend: Backend;
  readonly #fallbackStore: FallbackStore;
  readonly #names = new PolicyNames();
  readonly #fallbackDivisor: () => number;
  readonly #peers: Peers;
  readonly #prepared = new WeakMap<readonly StoreBinding<'async'>[], PreparedMembers | PreparedConcurrency>();
  readonly #preparedReserves = new WeakMap<readonly StoreBinding<'async'>[], PreparedReserve>();
  readonly #probeIntervalMs: number;
  /** warn is core's one-time failure warning, naming the cause (./failure-warning.ts) unless a 'failure' listener hears it. */
  readonly #warn: (info: FailureInfo) => void;
  /** How long a concurrency lease lives without renewal, in ms (see concurrency/concurrency-binding.ts). */
  readonly leaseTtlMs: number;

  constructor(options: RedisStoreOptions) {
    super();
    const o = resolveOptions(options);
    this.prefix = o.prefix;
    this.time = o.time;
    this.timeoutMs = o.timeoutMs;
    this.onFailure = o.onFailure;
    this.#fallbackStore = o.fallbackStore;
    this.#probeIntervalMs = o.probeIntervalMs;
    const client = options.client;
    this.#warn = failureWarner({
      owner: 'RedisStore',
      server: 'Redis',
      onFailure: o.onFailure,
      enabled: o.failureWarning,
      listening: () => this.listenerCount('failure') > 0,
      causeOf: (info) => causeOf(client, info, o.timeoutMs),
    });
    // Functions where the server has them; a Redis Cluster keeps to scripts (a library would have to be loaded on every node).
    const remote = new RedisRemote(o.send, o.timeoutMs, o.probeIntervalMs, !o.cluster);
    watchLink(client, remote.remote);
    const clientTime = o.time === 'client';
    const peers = redisPeers(remote, o.prefix);
    this.#peers = peers;
    if (o.fallbackDivisor === 'peers') remote.remote.onFirstCall(() => peers.start());
    const fixed = o.fallbackDivisor;
    this.#fallbackDivisor = fixed === 'peers' ? () => peers.count : () => fixed;
    this.leaseTtlMs = o.leaseTtlMs;
    const denyCache = o.denyCache ? new DenyCache() : undefined;
    this.#backend = {
      remote,
      prefix: o.prefix,
      onFailure: o.onFailure,
      clientTime,
      batcher: o.batch ? new Batcher(remote, clientTime, o.maxBatchSize, o.cluster ? slotOf : undefined, denyCache) : undefined,
      denyCache,
      fallbackDivisor: this.#fallbackDivisor,
      owed: new Owed(
        (callback) => remote.remote.onRecover(callback),
        (policy) => this.#report(failureInfo('refund', policy, UNAVAILABLE)),
      ),
      report: (info) => this.#report(info),
    };
  }

  /** @internal (limiters call it) */
  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): P extends ConcurrencyPolicy ? RedisConcurrency : RedisBinding<P>;
  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): RedisBinding<P> | RedisConcurrency {
    if (policy.algorithm === 'concurrency' && algorithm.name === 'concurrency') return this.#leases(algorithm, policy);
    if (!Object.hasOwn(STEPS, algorithm.name) || algorithm.name !== policy.algorithm) {
      throw new TypeError(`RedisStore: no script for algorithm ${JSON.stringify(algorithm.name)}`);
    }
    const signature = `${policy.algorithm} ${scriptParams(policy).join(' ')}`;
    const fallback = new Fallback(this.#fallbackStore, algorithm as Algorithm<Policy>, policy, this.#fallbackDivisor);
    const binding = new RedisBinding(this.#backend, algorithm, policy, fallback);
    if (!this.#names.claim(policy.name, signature, binding)) {
      throw new TypeError(`RedisStore: policy name "${policy.name}" is already bound with other parameters; give each limit its own name`);
    }
    return binding;
  }

  /** #leases binds a concurrency limit: its leases as a sorted set per key (concurrency/concurrency-binding.ts). */
  #leases<P extends Policy>(algorithm: Algorithm<P>, policy: ConcurrencyPolicy): RedisConcurrency {
    if (policy.limit > MAX_LEASES) {
      throw new TypeError(`RedisStore: a concurrency limit keeps one member per unit in flight; its limit must be at most ${MAX_LEASES}, got ${policy.limit}`);
    }
    const fallback = new Fallback(this.#fallbackStore, algorithm as Algorithm<Policy>, policy, this.#fallbackDivisor);
    const binding = new RedisConcurrency(this.#backend, policy, fallback, this.leaseTtlMs, this.#probeIntervalMs);
    if (!this.#names.claim(policy.name, `concurrency ${policy.limit} ${policy.retryAfterMs}`, binding)) {
      throw new TypeError(`RedisStore: policy name "${policy.name}" is already bound with other parameters; give each limit its own name`);
    }
    return binding;
  }

  /**
   * banned puts a ban in front of one of this store's bindings, in the same script call (ban-binding.ts).
   * @internal (BanLimiter calls it)
   */
  banned(binding: StoreBinding<'async'>, banMs: number): RedisBans {
    if (binding instanceof RedisConcurrency) throw new TypeError('RedisStore: bans apply to rate limits, not to a concurrency limit');
    const inner = binding as RedisBinding;
    return new RedisBans(inner, banMs, inner.policy.algorithm as StepName);
  }

  /** prepareAll checks a composite once, when CompositeLimiter is built: members, names, at most 16. */
  prepareAll(bindings: readonly StoreBinding<'async'>[]): void {
    if (!this.#prepared.has(bindings)) this.#prepared.set(bindings, this.#prepare(bindings));
  }

  /** consumeAll never throws: bindings no CompositeLimiter checked that are refused reject instead. */
  consumeAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, commit: boolean): Promise<readonly Decision[]> {
    let prepared = this.#prepared.get(bindings);
    if (prepared === undefined) {
      try {
        prepared = this.#prepare(bindings);
      } catch (error) {
        return Promise.reject(error);
      }
      this.#prepared.set(bindings, prepared);
    }
    if ('leases' in prepared) return decideWithConcurrency(this.#backend, this.#fallbackStore, prepared, key, now, cost, commit);
    return decideComposite(this.#backend, this.#fallbackStore, prepared, key, now, cost, commit);
  }

  #prepare(bindings: readonly StoreBinding<'async'>[]): PreparedMembers | PreparedConcurrency {
    return hasConcurrency(bindings) ? prepareConcurrency(this.#backend, bindings) : prepareMembers(this.#backend, bindings);
  }

  /**
   * reserveAll books a request for one binding or a composite's (core's reserve.ts contract) in one
   * atomic script (./reserve.ts); a booking Redis cannot make is refused, never decided by onFailure.
   */
  reserveAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
    let rp = this.#preparedReserves.get(bindings);
    if (rp === undefined) {
      try {
        rp = prepareReserve(this.#backend, prepareMembers(this.#backend, bindings));
      } catch (error) {
        return Promise.reject(error);
      }
      this.#preparedReserves.set(bindings, rp);
    }
    return bookOnRedis(this.#backend, rp, key, now, cost, maxWaitMs);
  }

  /**
   * batching counts the batches of more than one call sent so far and the calls they carried (both 0
   * with `batch: false`): calls ÷ batches is the mean batch size.
   */
  get batching(): { readonly batches: number; readonly calls: number } {
    const batcher = this.#backend.batcher;
    return { batches: batcher?.batches ?? 0, calls: batcher?.batched ?? 0 };
  }

  /**
   * leasing counts lease mode's work on this store (LeasedLimiter): the takes Redis answered, the
   * units they granted, and the units given back (expired, evicted, closed). units − returned is what
   * was spent locally or is still held.
   */
  get leasing(): { readonly refills: number; readonly units: number; readonly returned: number } {
    const { refills, units, returned } = leaseCounters(this.#backend);
    return { refills, units, returned };
  }

  /**
   * peers is the number of processes last seen deciding on this store's prefix (this one included; 1
   * until Redis has answered a count): with the default `fallbackDivisor`, each process's fallback
   * enforces the limit divided by it during an outage (./transport/peers.ts).
   */
  get peers(): number {
    return this.#peers.count;
  }

  /** denyCacheHits counts the decisions answered from the deny cache without a round trip. */
  get denyCacheHits(): number {
    return this.#backend.denyCache?.hits ?? 0;
  }

  /**
   * #report emits 'failure', or, when nobody listens, warns once per process per cause (./failure-warning.ts).
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
