/**
 * Store: where limiter state lives. A limiter binds its algorithm and policy to a store once, at
 * construction, and then talks only to the returned StoreBinding. The binding applies the algorithm's
 * step atomically per key; it never decides anything the step did not.
 *
 * A store is either synchronous (`mode: 'sync'`, the in-process MemoryStore: every call returns its
 * answer) or asynchronous (`mode: 'async'`, a remote store such as Redis: every call returns a promise
 * that resolves, never rejects, for a decision). The types carry the mode, so
 * `new TokenBucketLimiter({...}).consume(k)` is a Decision and, on a remote store, a Promise<Decision>.
 *
 * What a store can do beyond one policy's step is declared here too, each as optional members, so that
 * no limiter asks which class of store it was given:
 * - composites: `consumeAll` (with `allowAll`, `joins`, `prepareAll`): CompositeLimiter;
 * - refunds: the bindings' `refund` (StoreBinding): a limiter's `refund`, `countOutcome` and `settle`;
 * - charges and usage reads: the bindings' `charge` and `usage` (a limiter's `charge` and `usage`), and
 *   a banned binding's `block` (BanLimiter's `block`);
 * - bookings: `reserveAll`: reserve() and wait() (limiter/reserve.ts);
 * - bans: `banned`: BanLimiter (limiter/ban.ts);
 * - concurrency leases: the bindings' `refund` of a concurrency policy, which releases a lease:
 *   ConcurrencyLimiter (limiter/concurrency-limiter.ts).
 * A limiter that needs a capability its store lacks refuses it at construction with a TypeError naming
 * the limiter and the option (a reserve at its call, a refund at the call and in prepareRateLimit).
 * The shared store contract suite (@ratekeeper/store-contract) checks each one a store claims, and
 * that each one it does not claim is refused. Both entries export these types: the root, beside the
 * limiters that take a store, and `@ratekeeper/core/store`, beside the kit that implements them.
 */
import type { Algorithm } from '../algorithm.js';
import type { Decision } from '../decision.js';
import type { Policy } from '../policy.js';
import type { Usage } from '../usage.js';

export type Mode = 'sync' | 'async';

/** Result is T for a synchronous store and Promise<T> for an asynchronous one. */
export type Result<M extends Mode, T> = M extends 'sync' ? T : Promise<T>;

export interface StoreBinding<M extends Mode = Mode> {
  /** consume decides `cost` for `key` at `now` and, when allowed, records it. */
  consume(key: string, now: number, cost: number): Result<M, Decision>;
  /** peek decides like consume and records nothing. */
  peek(key: string, now: number, cost: number): Result<M, Decision>;
  /** allow is consume answering only whether the request was allowed. */
  allow(key: string, now: number, cost: number): Result<M, boolean>;
  /** reset returns `key` to its empty state. */
  reset(key: string): Result<M, void>;
  /** refund gives back up to `cost` units to `key` at `now`, never beyond its empty state (Algorithm.refund). */
  refund?(key: string, now: number, cost: number): Result<M, void>;
  /**
   * charge adds `cost` units to `key` at `now` whatever the limit says (Algorithm.charge; a limiter's
   * `charge`, rate-limiter-flexible's `penalty`) and answers the key's Usage after it. Never refused.
   */
  charge?(key: string, now: number, cost: number): Result<M, Usage>;
  /** usage reads `key`'s Usage at `now` (Algorithm.usage), deciding and recording nothing. */
  usage?(key: string, now: number): Result<M, Usage>;
  /**
   * block, on a binding with a ban in front (Store.banned), bans `key` from `now` for `ms`, whatever
   * its requests did: the ban then ends at now + ms, or later if one already running ends later (a
   * block never shortens a ban; `reset` lifts it), and no refund lifts it. A blocked key's Usage
   * carries the time left (`blockedMs`). Absent on bindings without a ban.
   */
  block?(key: string, now: number, ms: number): Result<M, void>;
}

export interface Store<M extends Mode = Mode> {
  readonly mode: M;
  /** bind prepares the store for one limiter's algorithm and policy. */
  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): StoreBinding<M>;
  /**
   * consumeAll decides `cost` for `key` under several bindings of this store at once, all or nothing:
   * when any binding denies, none records anything (`commit: false` never records). Decisions come back
   * in binding order. Stores without it cannot back a CompositeLimiter.
   */
  consumeAll?(bindings: readonly StoreBinding<M>[], key: string, now: number, cost: number, commit: boolean): Result<M, readonly Decision[]>;
  /**
   * joins, when present, tells whether this store's consumeAll (and allowAll) also decides bindings of
   * `other` together with its own: the memory store joins every memory store, since each binding keeps
   * its own table. Without it a composite's members must all share this one store.
   */
  joins?(other: Store<M>): boolean;
  /**
   * allowAll, when present, is consumeAll answering only whether every binding admits (committing when
   * they all do): a composite's `allow` uses it to skip building decisions it would throw away.
   */
  allowAll?(bindings: readonly StoreBinding<M>[], key: string, now: number, cost: number): Result<M, boolean>;
  /**
   * prepareAll, when present, is called once when a CompositeLimiter is built over these bindings: it
   * throws a TypeError when the store cannot decide them together, so that consumeAll never has to.
   */
  prepareAll?(bindings: readonly StoreBinding<M>[]): void;
  /**
   * reserveAll books `cost` for `key` under these bindings (one for a single limiter, a composite's
   * members otherwise) at the first instant, at or after `now`, at which every binding admits it and no
   * earlier than the latest booking on any of them, all or nothing; it refuses, recording nothing, when
   * the cost never fits or that instant is more than `maxWaitMs` away (-1: no bound). The contract is
   * reserve.ts's. Stores without it cannot back reserve() and wait().
   */
  reserveAll?(bindings: readonly StoreBinding<M>[], key: string, now: number, cost: number, maxWaitMs: number): Result<M, Booking<M>>;
  /**
   * banned answers a binding that decides with a ban of `banMs` in front of `binding` (one of this
   * store's, without a ban), atomically with the algorithm's step: while a key is banned every request
   * is denied with the ban's time left and changes nothing; outside a ban the first curable denial
   * starts one. The contract is limiter/ban.ts's. Stores without it cannot back a BanLimiter.
   */
  banned?(binding: StoreBinding<M>, banMs: number): StoreBinding<M>;
}

/**
 * Booking is a store's answer to reserveAll. `delayMs` is measured from the instant the store decided
 * at (the `now` it was given, or a remote server's own clock): 0 when the request may go at once,
 * Infinity when the cost never fits. `decisions` are the bindings' decisions at the booked instant when
 * `ok`, else their verdicts at `now` (a refused booking records nothing). `failed` marks a booking the
 * store could not make (its failure policy is not consulted: see reserve.ts).
 */
export interface Booking<M extends Mode = Mode> {
  readonly ok: boolean;
  readonly delayMs: number;
  readonly decisions: readonly Decision[];
  readonly failed?: true;
  /**
   * cancel gives back what the booking took, if `now` is before the booked instant: every binding's
   * state becomes the one it would hold had the booking never been made, with the bookings behind it
   * in place (reserve.ts; memory/memory-ledger.ts is the memory store's way, which a remote store must answer
   * alike: the latest CANCELLABLE_BOOKINGS of a key, none made before a write other than a booking).
   * It answers whether it did. At most one cancel succeeds.
   */
  cancel(now: number): Result<M, boolean>;
}
