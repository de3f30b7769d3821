/**
 * LeasedLimiter: lease mode for a token bucket on a RedisStore. Each process takes up to k units
 * (`units`) of a key's shared bucket in one atomic call (../lua/lease-script.ts) and decides locally
 * while they last: a decision served from a lease makes no round trip (its promise is already
 * resolved). Unspent units go back (one atomic refund) when they expire, `ttlMs` after their take was
 * sent, when the key is evicted, and on `close()`.
 *
 * The bound. Every unit admitted locally was first taken from the shared bucket, by the same step a
 * consume runs, and is spent once: so across any number of processes the total admitted never exceeds
 * what the bucket grants (its capacity plus its refill since it was full, between resets). What the
 * delay changes: a unit taken at t is spent before t + ttlMs, so an interval of length T admits at most
 * capacity + rate·(T + ttlMs) instead of capacity + rate·T (a burst may borrow up to ttlMs of refill).
 * The price is under-admission: a process keeps at most k units out of the bucket (taken or being
 * taken, not yet spent; ./lease-ledger.ts), so N processes hold at most N·k units that another process
 * asking Redis cannot have, at any instant. Windowed algorithms are refused (./lease-options.ts).
 *
 * Refills. When a key's lease falls to half of k, one take of k − held goes out in the background
 * (prefetch, so the hot path does not stall); at most one take per key is on the wire (single flight):
 * requests the lease cannot cover wait for it, then are served in order, and a take that fills all it
 * asked is followed by another while requests still wait. A partial take means the bucket is empty:
 * the key is then "dry" until a full lease could be there again (the script's wait), and its requests
 * go to Redis one call each, as without leases, so a denial is the store's own (deny cache, Retry-After).
 *
 * Decisions from a lease: `remaining` is the bucket's remaining as Redis reported it at the last take
 * plus the units still held here (other processes' spending since is not seen); `resetAfterMs` counts
 * down from that take's. Failure: a take Redis cannot answer takes nothing, and the requests waiting for
 * it are decided one call each, so by the store's failure policy; nothing is ever admitted beyond the
 * units a take granted. `reset` drops this process's lease of the key (other processes' leases taken
 * before it are still spent after it: up to (N − 1)·k); `refund` goes to Redis.
 *
 * Memory: at most `maxKeys` keys hold a lease; eviction, returns and the idle timer are in
 * ./lease-keys.ts.
 */
import type { Decision, RateLimiter, TokenBucketPolicy } from '@ratekeeper/core';
import type { RedisBinding } from '../binding.js';
import { type LeaseTake, takeLease } from './lease-calls.js';
import { type Entry, LeaseKeys, type Waiter } from './lease-keys.js';
import { ask, held, receive, spend } from './lease-ledger.js';
import { type LeasedOptions, resolveLease } from './lease-options.js';
import { refused } from './lease-refusal.js';

const OWNER = 'LeasedLimiter';
const TRUE = Promise.resolve(true);

/**
 * LeasedLimiter decides a token bucket on a RedisStore from units each process takes in advance (k =
 * `units` per key at most): no round trip while they last, never more admitted than the bucket grants,
 * at most N·k under-admitted across N processes. See the file's opening comment and the README's
 * "Lease mode".
 */
export class LeasedLimiter implements RateLimiter<'async'> {
  readonly mode = 'async';
  readonly policies: readonly TokenBucketPolicy[];
  /** The limiter leased from; its store and policy decide every call that is not served from a lease. */
  readonly inner: RateLimiter<'async'>;
  readonly units: number;
  readonly ttlMs: number;
  readonly maxKeys: number;
  readonly #binding: RedisBinding<TokenBucketPolicy>;
  readonly #clock: { now(): number };
  readonly #policy: TokenBucketPolicy;
  readonly #keys: LeaseKeys;
  #closed = false;

  constructor(limiter: RateLimiter<'async'>, options: LeasedOptions) {
    const o = resolveLease(limiter, options);
    this.inner = o.inner;
    this.units = o.units;
    this.ttlMs = o.ttlMs;
    this.maxKeys = o.maxKeys;
    this.#binding = o.binding;
    this.#clock = o.inner.clock;
    this.#policy = o.inner.policy;
    this.policies = o.inner.policies;
    this.#keys = new LeaseKeys(o.binding, o.inner.clock, o.maxKeys, o.ttlMs);
  }

  /**
   * held is the units this process keeps out of `key`'s shared bucket now (or out of every key's, with
   * no key): held in its lease, or asked of Redis by a take on the wire. Never more than `units` per key.
   */
  held(key?: string): number {
    return this.#keys.held(key);
  }

  consume(key: string, cost = 1): Promise<Decision> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !Number.isSafeInteger(cost) || cost < 1 || !Number.isFinite(now)) return refused(OWNER, key, cost, now);
    const served = this.#take(key, cost, now);
    return served instanceof Promise ? served : Promise.resolve(this.#fromLease(served, now, 0));
  }

  allow(key: string, cost = 1): Promise<boolean> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !Number.isSafeInteger(cost) || cost < 1 || !Number.isFinite(now)) return refused(OWNER, key, cost, now);
    const served = this.#take(key, cost, now);
    return served instanceof Promise ? served.then((d) => d.allowed) : TRUE;
  }

  /** peek answers from the lease when it covers `cost` (recording nothing), else asks Redis. */
  peek(key: string, cost = 1): Promise<Decision> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !Number.isSafeInteger(cost) || cost < 1 || !Number.isFinite(now)) return refused(OWNER, key, cost, now);
    const entry = this.#keys.get(key);
    if (entry !== undefined && entry.live) {
      this.#keys.expire(key, entry, now);
      if (held(entry.ledger) >= cost) return Promise.resolve(this.#fromLease(entry, now, cost));
    }
    return this.inner.peek(key, cost);
  }

  /** reset drops this process's lease of `key` (its units are reset with the key) and resets it in Redis. */
  reset(key: string): Promise<void> {
    this.#keys.drop(key);
    return this.inner.reset(key);
  }

  /** refund gives `cost` back to the shared bucket (atomic, never above full), not to the lease. */
  refund(key: string, cost = 1): Promise<void> {
    const entry = this.#keys.get(key);
    if (entry !== undefined) entry.dryUntil = Number.NEGATIVE_INFINITY;
    return (this.inner.refund as NonNullable<RateLimiter<'async'>['refund']>).call(this.inner, key, cost);
  }

  /**
   * close gives every held unit back and resolves once Redis has answered (takes on the wire are
   * waited for and returned too). From then on every call is decided by Redis, one call each.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#keys.close();
  }

  /** take spends from the lease (answers its entry) or answers the promise of the decision. */
  #take(key: string, cost: number, now: number): Entry | Promise<Decision> {
    let entry = this.#keys.get(key);
    if (entry !== undefined) {
      if (entry.ledger.old > 0) this.#keys.expire(key, entry, now);
      if (entry.waiters.length === 0 && spend(entry.ledger, cost)) {
        if (2 * held(entry.ledger) <= this.units && entry.ledger.asked === 0 && !(now < entry.dryUntil)) this.#refill(key, entry, now);
        return entry;
      }
    }
    if (this.#closed || cost > this.units) return this.#direct(key, cost);
    if (entry === undefined) {
      entry = this.#keys.admit(key, now);
      if (entry === undefined) return this.#direct(key, cost);
    }
    if (entry.ledger.asked === 0 && now < entry.dryUntil) return this.#direct(key, cost);
    const waiting = entry;
    return new Promise<Decision>((resolve) => {
      waiting.waiters.push({ cost, resolve });
      if (waiting.ledger.asked === 0) this.#refill(key, waiting, now);
    });
  }

  /** direct decides one request in Redis, as without a lease; an admission that shows a full lease's room ends a dry spell. */
  #direct(key: string, cost: number): Promise<Decision> {
    return this.inner.consume(key, cost).then((d) => {
      if (d.allowed && d.failure === undefined && d.remaining >= this.units) {
        const entry = this.#keys.get(key);
        if (entry !== undefined) entry.dryUntil = Number.NEGATIVE_INFINITY;
      }
      return d;
    });
  }

  #refill(key: string, entry: Entry, now: number): void {
    const wanted = ask(entry.ledger, this.units, now);
    if (wanted === 0) return;
    this.#keys.touch(key, entry); // the most recent take goes last: eviction takes the oldest
    this.#keys.track(takeLease(this.#binding, key, wanted, now).then((take) => this.#received(key, entry, wanted, take)));
  }

  #received(key: string, entry: Entry, wanted: number, take: LeaseTake | undefined): void {
    receive(entry.ledger, take === undefined ? 0 : take.granted, this.ttlMs);
    const now = this.#clock.now();
    if (take !== undefined) {
      entry.seen = take.remaining;
      entry.resetAt = entry.ledger.askedAt + take.resetAfterMs;
      if (take.granted < wanted) entry.dryUntil = entry.ledger.askedAt + take.waitMs;
    }
    if (!entry.live || this.#closed) {
      // Reset: the take's units went with the key. Evicted or closed: they go back.
      if (entry.live) this.#keys.retire(key, entry, now);
      for (const w of entry.waiters.splice(0)) w.resolve(this.#direct(key, w.cost));
      return;
    }
    this.#keys.expire(key, entry, now);
    const waiters = entry.waiters;
    let served = 0;
    while (served < waiters.length && spend(entry.ledger, (waiters[served] as Waiter).cost)) {
      (waiters[served] as Waiter).resolve(this.#fromLease(entry, now, 0));
      served++;
    }
    waiters.splice(0, served);
    if (waiters.length > 0 && take !== undefined && !(now < entry.dryUntil)) this.#refill(key, entry, now);
    else if (waiters.length > 0) for (const w of waiters.splice(0)) w.resolve(this.#direct(key, w.cost));
    else if (2 * held(entry.ledger) <= this.units && !(now < entry.dryUntil)) this.#refill(key, entry, now);
    this.#keys.arm();
  }

  /** fromLease is the decision of a request served from `entry`'s lease (after `cost` more units, for a peek). */
  #fromLease(entry: Entry, now: number, cost: number): Decision {
    const remaining = entry.seen + held(entry.ledger) - cost;
    const resetAfterMs = Math.ceil(entry.resetAt - now);
    const policy = this.#policy;
    return { allowed: true, limit: policy.limit, remaining: remaining > 0 ? remaining : 0, retryAfterMs: 0, resetAfterMs: resetAfterMs > 0 ? resetAfterMs : 0, policy };
  }
}
