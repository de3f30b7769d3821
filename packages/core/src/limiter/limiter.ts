/**
 * RateLimiter: the one interface every algorithm (and the composite) implements, and the base class
 * the single-policy limiters share. A limiter reads its clock once per call and hands `now` to its
 * store binding; on the in-memory store every call answers synchronously, on a remote store with a
 * promise that resolves (being limited is a Decision, never a rejection).
 *
 * `key` must be a string, `cost` a positive integer and the clock's reading a finite number: anything
 * else is refused at once, so that a bug in a caller's cost function or clock (`now() { Date.now() }`
 * answers undefined) can never turn into a silent admit or a NaN figure. A synchronous limiter throws;
 * a promise-returning one returns a rejected promise and never throws synchronously. A refusal is a
 * programming error, not a limit, which is why it is the one rejection a limiter's promise can carry.
 *
 * Options are checked by name too: an option the limiter does not take (`stor` for `store`) is a
 * TypeError at construction rather than a default silently used.
 */
import type { Algorithm } from '../algorithm.js';
import { type Clock, systemClock } from '../clock.js';
import type { Decision } from '../decision.js';
import { MemoryStore } from '../memory/memory-store.js';
import type { Policy } from '../policy.js';
import { claimName } from './store-names.js';
import type { Mode, Result, Store, StoreBinding } from '../store/contract.js';
import type { Usage } from '../usage.js';
import { describeValue, isCost, refuseCall } from '../validate.js';

export interface RateLimiter<M extends Mode = Mode> {
  /** 'sync' when every call answers directly, 'async' when every call answers with a promise. */
  readonly mode: M;
  /** The policies this limiter enforces: one, or a composite's members' in order. */
  readonly policies: readonly Policy[];
  /** consume decides a request of `cost` (default 1) for `key` and records it when allowed. */
  consume(key: string, cost?: number): Result<M, Decision>;
  /** peek decides like consume and records nothing. */
  peek(key: string, cost?: number): Result<M, Decision>;
  /** allow is consume answering only the verdict; on the memory store it allocates nothing. */
  allow(key: string, cost?: number): Result<M, boolean>;
  /** reset returns `key` to its empty state. */
  reset(key: string): Result<M, void>;
  /**
   * refund gives back up to `cost` (default 1) units that `key` spent, for a request that turned out
   * not to count (or to cost less). Never raises a key above its empty (full) state, never admits more
   * than the policy would net of refunds; atomic per key on every store. Present on every core limiter.
   */
  refund?(key: string, cost?: number): Result<M, void>;
  /**
   * refundable is false when `refund` would be refused: the algorithm has no refund step, or the store's
   * bindings cannot refund (StoreBinding.refund, ../store/contract.ts). prepareRateLimit reads it to refuse
   * `countOutcome` and `settle` at construction. Absent, a limiter with `refund` is taken to refund.
   */
  readonly refundable?: boolean;
  /**
   * release returns `cost` (default 1) units of `key` that a request held while in flight (a
   * concurrency lease, see concurrency-limiter.ts), never below zero. Present only on limiters that hold
   * leases; the adapters then release every admitted request's lease exactly once when its work is
   * over (http/settle/work.ts).
   */
  release?(key: string, cost?: number): Result<M, void>;
  /**
   * charge adds `cost` (default 1) units to `key` whatever the limit says, and answers the key's Usage
   * after it: rate-limiter-flexible's `penalty`. Where `consume` would deny and record nothing, a
   * charge always counts, so a key may hold more than its limit; it is then denied until the excess
   * has passed. Present on core's single-policy limiters (refused on a concurrency limit and on a store
   * without StoreBinding.charge: `chargeable`).
   */
  charge?(key: string, cost?: number): Result<M, Usage>;
  /**
   * usage reads what `key` has spent (Usage: used, remaining, resetAfterMs), deciding nothing:
   * rate-limiter-flexible's `get`. `peek` instead decides for one more request of `cost`.
   */
  usage?(key: string): Result<M, Usage>;
  /**
   * bookable is what `reserve` and `wait` book on: the store, one binding per policy in order, and the
   * clock. Present on core's single-policy limiters and on CompositeLimiter (not on BanLimiter, whose
   * bans cannot be booked); reserve refuses a limiter without it, and a store without `reserveAll`.
   */
  readonly bookable?: Bookable<M>;
}

/** Bookable: a limiter's store, its bindings with their policies (one per policy, in order) and its clock, as `reserve` books on them. */
export interface Bookable<M extends Mode = Mode> {
  readonly store: Store<M>;
  readonly bindings: readonly StoreBinding<M>[];
  /** The bindings' policies, in the same order (reserve refuses a concurrency policy: a lease has no instant). */
  readonly policies: readonly Policy[];
  readonly clock: Clock;
}

/** Options every single-policy limiter takes. */
export interface LimiterOptions<M extends Mode> {
  /** Where time comes from (default: systemClock, monotonic). */
  readonly clock?: Clock;
  /** Where state lives (default: a new MemoryStore). */
  readonly store?: Store<M>;
  /**
   * The policy's name in headers and store keys (default: derived from the parameters, e.g. `fw-3-60000`).
   * On a shared `store` one name is one budget: two limiters with the same settings and no name share
   * it (the adapters' shorthand refuses that: store-names.ts); name each, or both alike to share on purpose.
   */
  readonly name?: string;
}

/** Limiter is one policy, one algorithm, one store binding. */
export abstract class Limiter<P extends Policy, M extends Mode> implements RateLimiter<M> {
  readonly mode: M;
  readonly policy: P;
  readonly policies: readonly P[];
  readonly clock: Clock;
  readonly store: Store<M>;
  /** The store binding this limiter decides through (used by CompositeLimiter). */
  readonly binding: StoreBinding<M>;
  readonly #owner: string;
  /** refundable: the algorithm has a refund step (every core algorithm does) and the store's bindings refund, so refund() works. */
  readonly refundable: boolean;
  /** chargeable: the algorithm has charge and usage steps and the store's bindings run them, so charge() and usage() work. */
  readonly chargeable: boolean;
  readonly bookable: Bookable<M>;

  protected constructor(owner: string, algorithm: Algorithm<P>, policy: P, options: LimiterOptions<M>) {
    this.#owner = owner;
    this.clock = options.clock === undefined ? systemClock : checkClock(owner, options.clock);
    this.store = options.store === undefined ? (new MemoryStore() as unknown as Store<M>) : checkStore(owner, options.store);
    if (options.store !== undefined) claimName(this.store, policy, options.name !== undefined, this);
    this.mode = this.store.mode;
    this.policy = policy;
    this.policies = Object.freeze([policy]);
    this.binding = this.store.bind(algorithm, policy);
    this.refundable = algorithm.refund !== undefined && typeof this.binding.refund === 'function';
    this.chargeable = algorithm.charge !== undefined && algorithm.usage !== undefined && typeof this.binding.charge === 'function' && typeof this.binding.usage === 'function';
    this.bookable = Object.freeze({ store: this.store, bindings: Object.freeze([this.binding]), policies: this.policies, clock: this.clock });
  }

  // Each call reads the clock once, then refuses a bad key, cost or reading in one branch: the check
  // of `now` is one more comparison on the hot path (Number.isFinite is inlined by V8).
  consume(key: string, cost = 1): Result<M, Decision> {
    const now = this.clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(this.#owner, this.mode, key, cost, now);
    return this.binding.consume(key, now, cost);
  }

  peek(key: string, cost = 1): Result<M, Decision> {
    const now = this.clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(this.#owner, this.mode, key, cost, now);
    return this.binding.peek(key, now, cost);
  }

  allow(key: string, cost = 1): Result<M, boolean> {
    const now = this.clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(this.#owner, this.mode, key, cost, now);
    return this.binding.allow(key, now, cost);
  }

  /** reset reads no clock: only the key is checked. */
  reset(key: string): Result<M, void> {
    if (typeof key !== 'string') return refuseCall(this.#owner, this.mode, key, 1, 0);
    return this.binding.reset(key);
  }

  refund(key: string, cost = 1): Result<M, void> {
    const now = this.clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(this.#owner, this.mode, key, cost, now);
    const refund = this.binding.refund;
    if (refund === undefined || !this.refundable) throw new TypeError(`${this.#owner}: its algorithm or store cannot refund`);
    return refund.call(this.binding, key, now, cost);
  }

  /** charge adds `cost` units to `key` whatever the limit says (RateLimiter.charge). */
  charge(key: string, cost = 1): Result<M, Usage> {
    const now = this.clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(this.#owner, this.mode, key, cost, now);
    const charge = this.binding.charge;
    if (charge === undefined || !this.chargeable) throw new TypeError(`${this.#owner}: its algorithm or store cannot charge`);
    return charge.call(this.binding, key, now, cost);
  }

  /** usage reads what `key` has spent, deciding nothing (RateLimiter.usage). */
  usage(key: string): Result<M, Usage> {
    const now = this.clock.now();
    if (typeof key !== 'string' || !Number.isFinite(now)) return refuseCall(this.#owner, this.mode, key, 1, now);
    const usage = this.binding.usage;
    if (usage === undefined || !this.chargeable) throw new TypeError(`${this.#owner}: its algorithm or store cannot read usage`);
    return usage.call(this.binding, key, now);
  }
}

function checkClock(owner: string, clock: Clock): Clock {
  if (typeof clock !== 'object' || clock === null || typeof clock.now !== 'function') {
    throw new TypeError(`${owner}: clock must be an object with a now() method, got ${describeValue(clock)}`);
  }
  return clock;
}

function checkStore<M extends Mode>(owner: string, store: Store<M>): Store<M> {
  const ok = typeof store === 'object' && store !== null && typeof store.bind === 'function' && (store.mode === 'sync' || store.mode === 'async');
  if (!ok) throw new TypeError(`${owner}: store must be a Store (mode 'sync' or 'async' and a bind() method), got ${describeValue(store)}`);
  return store;
}
