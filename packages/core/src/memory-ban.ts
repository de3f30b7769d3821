/**
 * MemoryBans: the memory store's side of the Bans contract (ban.ts). Each key's ban is one number, the
 * instant it ends, in a Map beside the algorithm's table, checked before the algorithm in the same
 * synchronous pass. Bounded like the table: an ended ban is dropped when its key is next seen, and when
 * `maxKeys` bans are held, the bans nearest their end go first (every ban lasts `banMs`, so the Map's
 * insertion order is the order of their ends). Long keys are held as the store holds them (their
 * digest, key-digest.ts). No timers.
 */
import { type Decision, bannedDecision } from './decision.js';
import { storedKey } from './key-digest.js';
import type { MemoryBinding } from './memory-store.js';
import type { Policy } from './policy.js';
import type { StoreBinding } from './store.js';

export class MemoryBans implements StoreBinding<'sync'> {
  readonly #inner: MemoryBinding;
  readonly #policy: Policy;
  readonly #banMs: number;
  readonly #maxKeys: number;
  readonly #until = new Map<string, number>();

  constructor(inner: MemoryBinding, policy: Policy, banMs: number, maxKeys: number) {
    this.#inner = inner;
    this.#policy = policy;
    this.#banMs = banMs;
    this.#maxKeys = maxKeys;
  }

  /** size is the number of bans held (ended ones not yet dropped included). */
  get size(): number {
    return this.#until.size;
  }

  consume(key: string, now: number, cost: number): Decision {
    const left = this.#left(key, now);
    if (left > 0) return bannedDecision(this.#policy, left);
    const decision = this.#inner.consume(key, now, cost);
    if (decision.allowed || decision.retryAfterMs === Infinity) return decision;
    this.#ban(key, now);
    return bannedDecision(this.#policy, this.#banMs);
  }

  peek(key: string, now: number, cost: number): Decision {
    const left = this.#left(key, now);
    if (left > 0) return bannedDecision(this.#policy, left);
    const decision = this.#inner.peek(key, now, cost);
    return decision.allowed || decision.retryAfterMs === Infinity ? decision : bannedDecision(this.#policy, this.#banMs);
  }

  allow(key: string, now: number, cost: number): boolean {
    return this.consume(key, now, cost).allowed;
  }

  reset(key: string): void {
    this.#until.delete(storedKey(key));
    this.#inner.reset(key);
  }

  refund(key: string, now: number, cost: number): void {
    this.#inner.refund(key, now, cost);
  }

  /** #left is the time left in `key`'s ban at `now` (0 when not banned); an ended ban is dropped. */
  #left(key: string, now: number): number {
    key = storedKey(key);
    const until = this.#until.get(key);
    if (until === undefined) return 0;
    if (now < until) return until - now;
    this.#until.delete(key);
    return 0;
  }

  #ban(key: string, now: number): void {
    if (this.#until.size >= this.#maxKeys) {
      for (const [k, until] of this.#until) if (until <= now || this.#until.size >= this.#maxKeys) this.#until.delete(k);
    }
    this.#until.set(storedKey(key), now + this.#banMs);
  }
}
