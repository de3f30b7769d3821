/**
 * DenyCache: denials Redis gave this process, remembered until they expire, so that a key that is
 * over its limit is answered without a round trip (an attacker hammering one key costs Redis nothing
 * until the key could be admitted again).
 *
 * What it guarantees. An entry (key, cost c, until T) is made from a Redis denial of cost c whose wait
 * was R, with T = the instant the call was *sent* + R on this process's clock. Redis ran the script
 * after the send, so its own "allowed again at" is no earlier than T: until T, the same key at cost c
 * would be denied by Redis too, unless something gives units back in the meantime. So in one process
 * the cache changes no decision, only skips round trips: another cost still goes to Redis (a larger one
 * waits longer than R, a smaller one may fit), an admission of the key drops its entry (its wait grew),
 * and so do this process's `reset` and refund of the key, also when the denial's reply comes after
 * them (a `stamp` taken at the send: a denial sent before a forget of its key is not remembered; the
 * forgets are kept per key, at most `maxEntries`, then all at once as a floor). A give-back forgets
 * the key when it is sent and again when it is answered: Remote sends a call again when Redis got it
 * past its deadline, so Redis may run it after a denial sent later. Across processes it changes one
 * thing: a `reset` or refund made by another process is seen here only after T (at most the Retry-After
 * that was already sent to the client).
 *
 * The answer's figures are honest: `retryAfterMs` counts from the instant the reply arrived + R (the
 * later bound, so a client told to wait never comes back early), `remaining` is the figure Redis last
 * gave (a lower bound: a bucket may have refilled a little since).
 *
 * It is bounded: at most `maxEntries` keys; when full, expired entries are swept out (O(size), at most
 * once per maxEntries/8 insertions) and a new denial that still finds no room is simply not cached.
 */
import type { Decision } from '@ratekeeper/core';

interface Entry {
  /** The cost that was denied (a larger one waits longer, a smaller one may be admitted). */
  cost: number;
  /** Denied until this instant (the send instant + R): the decision rule. */
  until: number;
  /** Allowed no earlier than this instant (the reply instant + R): the figure reported. */
  retryAt: number;
  /** Empty no earlier than this instant (the reply instant + the reset wait). */
  resetAt: number;
  decision: Decision;
}

export const DEFAULT_DENY_CACHE_ENTRIES = 10_000;

export class DenyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;
  #sinceSweep = 0;
  /** Counts the forgets; a key's entry in #forgot is the count at its latest one (at most #max, then #floor). */
  #sequence = 0;
  readonly #forgot = new Map<string, number>();
  #floor = 0;
  /** hits counts the decisions answered from the cache. */
  hits = 0;

  constructor(maxEntries = DEFAULT_DENY_CACHE_ENTRIES) {
    this.#max = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * answer is the cached denial for `key` at `cost` at instant `now`, or undefined when the store must
   * be asked. An expired entry is dropped.
   */
  answer(key: string, cost: number, now: number): Decision | undefined {
    if (this.#entries.size === 0) return undefined; // the usual case, without hashing the key
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (now >= entry.until) {
      this.#entries.delete(key);
      return undefined;
    }
    if (cost !== entry.cost) return undefined;
    this.hits++;
    const retryAfterMs = Math.ceil(entry.retryAt - now);
    return { ...entry.decision, retryAfterMs, resetAfterMs: Math.max(retryAfterMs, Math.ceil(entry.resetAt - now)) };
  }

  /**
   * remember records Redis's answer to a call of `cost` sent at `sentAt` that arrived at `arrivedAt`.
   * Only a plain denial that waiting can lift is kept (not a failure-policy decision, not a cost no
   * policy can ever grant: those are not worth a slot).
   */
  remember(key: string, cost: number, sentAt: number, arrivedAt: number, decision: Decision, stamp = this.#sequence): void {
    if (decision.allowed) {
      this.admitted(key);
      return;
    }
    if (decision.failure !== undefined || !(decision.retryAfterMs > 0) || decision.retryAfterMs === Infinity) return;
    // Units came back to the key after this call was sent: Redis may admit it now.
    if (stamp < this.#floor || (this.#forgot.get(key) ?? Number.NEGATIVE_INFINITY) > stamp) return;
    const until = sentAt + decision.retryAfterMs;
    if (!this.#entries.has(key) && !this.#room(arrivedAt)) return;
    this.#entries.set(key, { cost, until, retryAt: arrivedAt + decision.retryAfterMs, resetAt: arrivedAt + decision.resetAfterMs, decision });
  }

  /** admitted drops `key` after Redis admitted it: its state moved, so a remembered wait may now be too short. */
  admitted(key: string): void {
    if (this.#entries.size > 0) this.#entries.delete(key);
  }

  /** stamp is taken when a call is sent, for `remember`: a forget of its key after it voids its denial. */
  stamp(): number {
    return this.#sequence;
  }

  /** forget drops `key` (after a reset or a refund in this process), and a denial of it still on the wire. */
  forget(key: string): void {
    this.#entries.delete(key);
    if (this.#forgot.size >= this.#max && !this.#forgot.has(key)) {
      this.#forgot.clear();
      this.#floor = this.#sequence + 1; // every call sent before now may have been sent before a forget of its key
    }
    this.#forgot.set(key, ++this.#sequence);
  }

  #room(now: number): boolean {
    if (this.#entries.size < this.#max) return true;
    if (++this.#sinceSweep < this.#max >> 3) return false;
    this.#sinceSweep = 0;
    for (const [key, entry] of this.#entries) if (now >= entry.until) this.#entries.delete(key);
    return this.#entries.size < this.#max;
  }
}
