/**
 * LeaseKeys: the keys one LeasedLimiter holds leases for (./leased.ts decides; this keeps the table),
 * and every return of units to Redis.
 *
 * Bounded: at most `maxKeys` entries. A new key past that evicts the entry whose last take is oldest
 * (the map keeps entries in take order: a refill moves its key to the back) among the first 8 that
 * have no take on the wire, giving its units back; when none of those can go, the new key gets no
 * entry and is decided one call at a time. So a flood of fresh keys costs a bounded scan per key and
 * keeps at most maxKeys × k units out of the buckets.
 *
 * Returns are tracked until Redis answers them (`settled` waits for all, for close()). One timer,
 * unref'd, runs while units are held: every ttlMs / 8 it gives back the expired units of keys no
 * request touched, and forgets entries that hold nothing.
 */
import type { Decision, TokenBucketPolicy } from '@ratekeeper/core';
import type { RedisBinding } from '../binding.js';
import { returnUnits } from './lease-calls.js';
import { type LeaseLedger, drain, emptyLedger, expire, held } from './lease-ledger.js';

/** Waiter is a request waiting for the take on the wire. */
export interface Waiter {
  readonly cost: number;
  readonly resolve: (decision: Decision | Promise<Decision>) => void;
}

export interface Entry {
  readonly ledger: LeaseLedger;
  readonly waiters: Waiter[];
  /** Until this instant the bucket is known to be short of a full lease: decide one call at a time. */
  dryUntil: number;
  /** The bucket's whole tokens as Redis reported them at the last take, and the instant it is full. */
  seen: number;
  resetAt: number;
  /** False once reset, evicted or closed: a take answered later is not spent. */
  live: boolean;
}

const SCAN = 8;

export class LeaseKeys {
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #binding: RedisBinding<TokenBucketPolicy>;
  readonly #clock: { now(): number };
  readonly #maxKeys: number;
  readonly #sweepMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(binding: RedisBinding<TokenBucketPolicy>, clock: { now(): number }, maxKeys: number, ttlMs: number) {
    this.#binding = binding;
    this.#clock = clock;
    this.#maxKeys = maxKeys;
    this.#sweepMs = Math.max(1, Math.ceil(ttlMs / 8));
  }

  get(key: string): Entry | undefined {
    return this.#entries.get(key);
  }

  /** held is the units kept out of `key`'s bucket (held or asked), or out of every key's. */
  held(key?: string): number {
    if (key !== undefined) {
      const e = this.#entries.get(key);
      return e === undefined ? 0 : held(e.ledger) + e.ledger.asked;
    }
    let n = 0;
    for (const e of this.#entries.values()) n += held(e.ledger) + e.ledger.asked;
    return n;
  }

  /** admit makes an entry for a new key, evicting an old one when full; undefined when none can go. */
  admit(key: string, now: number): Entry | undefined {
    if (this.#entries.size >= this.#maxKeys) {
      let scanned = 0;
      let victim: [string, Entry] | undefined;
      for (const pair of this.#entries) {
        if (pair[1].ledger.asked === 0) {
          victim = pair;
          break;
        }
        if (++scanned >= SCAN) break;
      }
      if (victim === undefined) return undefined;
      this.#entries.delete(victim[0]);
      this.retire(victim[0], victim[1], now);
    }
    const entry: Entry = { ledger: emptyLedger(), waiters: [], dryUntil: Number.NEGATIVE_INFINITY, seen: 0, resetAt: now, live: true };
    this.#entries.set(key, entry);
    return entry;
  }

  /** touch moves `key` to the back: its take is now the most recent. */
  touch(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
  }

  /** drop forgets `key` without giving anything back (a reset took its units with it). */
  drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.live = false;
    drain(entry.ledger);
    this.#entries.delete(key);
  }

  /** retire gives an entry's held units back; it decides nothing more. */
  retire(key: string, entry: Entry, now: number): void {
    entry.live = false;
    const units = drain(entry.ledger);
    if (units > 0) this.track(returnUnits(this.#binding, key, units, now));
  }

  /** expire gives back the entry's units whose time is over. */
  expire(key: string, entry: Entry, now: number): void {
    const gone = expire(entry.ledger, now);
    if (gone > 0) this.track(returnUnits(this.#binding, key, gone, now));
  }

  /** track keeps `promise` (a take or a return) until it settles, for close(). */
  track(promise: Promise<unknown>): void {
    this.#pending.add(promise);
    void promise.then(() => this.#pending.delete(promise));
  }

  /** close stops the timer, gives back every entry with no take on the wire, and waits for every call. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = this.#clock.now();
    for (const [key, entry] of this.#entries) if (entry.ledger.asked === 0) this.retire(key, entry, now);
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** arm starts the sweep of idle keys' expired units while any unit is held. */
  arm(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(this.#sweep, this.#sweepMs);
    this.#timer.unref?.();
  }

  readonly #sweep = (): void => {
    this.#timer = undefined;
    const now = this.#clock.now();
    let holding = false;
    for (const [key, entry] of this.#entries) {
      if (entry.ledger.asked === 0) this.expire(key, entry, now);
      if (held(entry.ledger) > 0 || entry.ledger.asked > 0) holding = true;
      else if (entry.waiters.length === 0 && !(now < entry.dryUntil)) this.#entries.delete(key);
    }
    if (holding) this.arm();
  };
}
