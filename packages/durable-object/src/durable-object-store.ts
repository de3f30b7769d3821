/**
 * DurableObjectStore shares limits across every isolate of a Cloudflare Worker, in every location,
 * through RateLimiterObject (object.ts). Every core limiter accepts it unchanged
 * (`store: new DurableObjectStore({ namespace: env.LIMITS })`) and then answers with promises.
 *
 * One object per key. A key's calls, for every policy, go to the object named prefix + key, which
 * decides them one after another: a hot key is never spread over objects (spreading it would give
 * each object the whole limit), and a composite's members, which share the key, are one object's
 * one step, all or nothing. Keys never share an object either, so a hot key slows no other key and a
 * key flood only makes more objects, each holding one key. Cloudflare places an object near the
 * first request that names it, so a client's limits usually live close to the client.
 *
 * Each decision costs a round trip from the Worker to its key's object (on another machine, maybe in
 * another city); the calls a request makes to one object in one turn travel together (calls.ts).
 * The object's clock decides by default (`time: 'object'`), so no isolate's clock can bend a limit;
 * `time: 'client'` sends the limiter's clock (deterministic tests).
 *
 * Capabilities: every core rate algorithm (token bucket, GCRA, sliding window, fixed window, sliding
 * log), composites, refund, reserve/wait (the wait is the Worker's), bans. Not concurrency leases: a
 * lease taken by an isolate that then dies (evicted, crashed, its request cancelled) would be held in
 * the object forever, as nothing here can give a lease an expiry that outlives its isolate, so a
 * ConcurrencyLimiter on this store is refused at construction, by name.
 *
 * Failure is a policy, not an accident (failure.ts, calls.ts): an RPC that throws or goes unanswered
 * for `timeoutMs` is decided by `onFailure` ('fallback', the default: this isolate's memory, with the
 * same policy; 'open'; 'closed'), reported to the 'failure' listeners, never as an error text, never
 * as a rejected promise. Without a 'failure' listener the store warns once per isolate per cause
 * instead (timed out, overloaded, the call failed, the object threw: failure-cause.ts), unless
 * `failureWarning: false`. A policy name is a key namespace, as on RedisStore: limiters with one name
 * share their counts; binding one name with other parameters throws.
 */
import { type Algorithm, type Booking, type Decision, type Policy, type Store, type StoreBinding, fixedWindow, slidingWindow, tokenBucket } from '@ratekeeper/core';
import type { Backend } from './backend.js';
import { DurableObjectBinding } from './binding.js';
import { Calls } from './calls.js';
import { failureWarner } from '@ratekeeper/core/store';
import type { FailureInfo } from './failure.js';
import { causeOf } from './failure-cause.js';
import { type DurableObjectStoreOptions, type FailurePolicy, type FallbackStore, type TimeSource, resolveOptions } from './options.js';
import { type PreparedMembers, bookAll, decideAll, prepareMembers } from './together.js';

const OWNER = 'DurableObjectStore';
const STEPS: readonly Algorithm<Policy>[] = [tokenBucket, slidingWindow, fixedWindow] as readonly Algorithm<Policy>[];

/** coreStep tells whether `algorithm` is core's step for `policy` (a sliding log's step is made per limit: by name). */
function coreStep(algorithm: Algorithm<Policy>, policy: Policy): boolean {
  if (algorithm.name !== policy.algorithm) return false;
  return policy.algorithm === 'sliding-log' || STEPS.includes(algorithm);
}

export class DurableObjectStore implements Store<'async'> {
  readonly mode = 'async';
  readonly prefix: string;
  readonly time: TimeSource;
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly #backend: Backend;
  readonly #calls: Calls;
  readonly #fallbackStore: FallbackStore;
  readonly #names = new Map<string, string>();
  readonly #prepared = new WeakMap<readonly StoreBinding<'async'>[], PreparedMembers>();
  readonly #listeners = new Set<(info: FailureInfo) => void>();
  readonly #warn: (info: FailureInfo) => void;

  constructor(options: DurableObjectStoreOptions) {
    const o = resolveOptions(options);
    this.prefix = o.prefix;
    this.time = o.time;
    this.timeoutMs = o.timeoutMs;
    this.onFailure = o.onFailure;
    this.#fallbackStore = o.fallbackStore;
    this.#warn = failureWarner({
      owner: OWNER,
      server: 'the Durable Object',
      onFailure: o.onFailure,
      enabled: o.failureWarning,
      listening: () => this.#listeners.size > 0,
      causeOf: (info) => causeOf(info, o.timeoutMs),
    });
    const { namespace, prefix } = o;
    this.#calls = new Calls((name, batch) => namespace.get(namespace.idFromName(name) as never).run(batch), o.timeoutMs, o.batch, o.maxBatchSize);
    this.#backend = {
      calls: this.#calls,
      clientTime: o.time === 'client',
      onFailure: o.onFailure,
      objectName: (key) => prefix + key,
      report: (info) => this.#report(info),
    };
  }

  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): DurableObjectBinding<P> {
    if (policy.algorithm === 'concurrency') {
      throw new TypeError(
        `${OWNER}: concurrency leases are not supported: a lease taken by an isolate that dies would stay held in its object, with no expiry to end it; use a rate limit here, or RedisStore (its leases expire)`,
      );
    }
    if (!coreStep(algorithm as unknown as Algorithm<Policy>, policy)) {
      throw new TypeError(`${OWNER}: the object runs core's own steps only; no step for algorithm ${JSON.stringify(algorithm.name)}`);
    }
    const signature = JSON.stringify(policy);
    const known = this.#names.get(policy.name);
    if (known !== undefined && known !== signature) {
      throw new TypeError(`${OWNER}: policy name "${policy.name}" is already bound with other parameters; give each limit its own name`);
    }
    this.#names.set(policy.name, signature);
    return new DurableObjectBinding(this.#backend, policy, this.#fallbackStore.bind(algorithm, policy));
  }

  /** banned puts a ban in front of one of this store's bindings, decided by the object in the same op (core's ban.ts). */
  banned(binding: StoreBinding<'async'>, banMs: number): DurableObjectBinding {
    if (!(binding instanceof DurableObjectBinding) || binding.backend !== this.#backend || binding.banMs !== undefined) {
      throw new TypeError(`${OWNER}: banned takes a binding of this store without a ban`);
    }
    return binding.withBan(banMs);
  }

  /** prepareAll checks a composite once, when CompositeLimiter is built: members of this store, distinct names. */
  prepareAll(bindings: readonly StoreBinding<'async'>[]): void {
    if (!this.#prepared.has(bindings)) this.#prepared.set(bindings, prepareMembers(this.#backend, bindings));
  }

  /** consumeAll decides every member in one op of the key's object, all or nothing; bindings no CompositeLimiter checked may reject. */
  consumeAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, commit: boolean): Promise<readonly Decision[]> {
    const prepared = this.#preparedOf(bindings);
    return prepared instanceof Error ? Promise.reject(prepared) : decideAll(this.#backend, this.#fallbackStore, prepared, key, now, cost, commit);
  }

  /** reserveAll books a request (core's reserve.ts contract) in one op; a booking the object cannot make is refused. */
  reserveAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
    const prepared = this.#preparedOf(bindings);
    return prepared instanceof Error ? Promise.reject(prepared) : bookAll(this.#backend, prepared, key, now, cost, maxWaitMs);
  }

  /** on adds a listener for each failure the failure policy decided (FailureInfo). */
  on(event: 'failure', listener: (info: FailureInfo) => void): this {
    if (event !== 'failure' || typeof listener !== 'function') throw new TypeError(`${OWNER}: on takes 'failure' and a function`);
    this.#listeners.add(listener);
    return this;
  }

  /** off removes a listener added by on. */
  off(event: 'failure', listener: (info: FailureInfo) => void): this {
    if (event === 'failure') this.#listeners.delete(listener);
    return this;
  }

  /** batching counts the RPCs sent and the calls they carried: calls ÷ rpcs is the mean batch size. */
  get batching(): { readonly rpcs: number; readonly calls: number } {
    return { rpcs: this.#calls.rpcs, calls: this.#calls.calls };
  }

  #preparedOf(bindings: readonly StoreBinding<'async'>[]): PreparedMembers | Error {
    let prepared = this.#prepared.get(bindings);
    if (prepared !== undefined) return prepared;
    try {
      prepared = prepareMembers(this.#backend, bindings);
    } catch (error) {
      return error as Error;
    }
    this.#prepared.set(bindings, prepared);
    return prepared;
  }

  /**
   * #report tells the 'failure' listeners, or, when there is none, warns once per isolate per cause (failure-cause.ts).
   * A listener that throws is the caller's bug: it surfaces as an uncaught error, never in a decision.
   */
  #report(info: FailureInfo): void {
    this.#warn(info);
    for (const listener of this.#listeners) {
      try {
        listener(info);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
