/**
 * MemoryBans: the memory store's side of the Bans contract (ban.ts). Each key's ban is two numbers, the
 * instant it ends and the cost of the denial that started it, in a Map beside the algorithm's table,
 * checked before the algorithm in the same synchronous pass. A refund during a ban gives back to the
 * algorithm first, then lifts the ban when the algorithm would now admit that cost (ban.ts says why).
 * Bounded like the table: an ended ban is dropped when its key is next seen, and when `maxKeys` bans
 * are held, the bans nearest their end go first (every ban lasts `banMs`, so the Map's insertion order
 * is the order of their ends; a lifted ban leaves it; a `block` of another length may end out of that
 * order, and is then only nearly the nearest to go). A block is a ban whose cost is 0: no refund lifts
 * it. Long keys are held as the store holds them
 * (their digest, key-digest.ts). No timers.
 */
import { type Decision, bannedDecision } from '../decision.js';
import { storedKey } from './key-digest.js';
import type { MemoryBinding } from './memory-binding.js';
import type { Policy } from '../policy.js';
import type { StoreBinding } from '../store/contract.js';
import type { Usage } from '../usage.js';

/** Ban is one key's ban: when it ends, and the cost whose denial started it. */
interface Ban {
  readonly until: number;
  readonly cost: number;
}

export class MemoryBans implements StoreBinding<'sync'> {
  readonly #inner: MemoryBinding;
  readonly #policy: Policy;
  readonly #banMs: number;
  readonly #maxKeys: number;
  readonly #bans = new Map<string, Ban>();

  constructor(inner: MemoryBinding, policy: Policy, banMs: number, maxKeys: number) {
    this.#inner = inner;
    this.#policy = policy;
    this.#banMs = banMs;
    this.#maxKeys = maxKeys;
  }

  /** size is the number of bans held (ended ones not yet dropped included). */
  get size(): number {
    return this.#bans.size;
  }

  consume(key: string, now: number, cost: number): Decision {
    const left = this.#left(key, now);
    if (left > 0) return bannedDecision(this.#policy, left);
    const decision = this.#inner.consume(key, now, cost);
    if (decision.allowed || decision.retryAfterMs === Infinity) return decision;
    this.#ban(key, now, cost);
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
    this.#bans.delete(storedKey(key));
    this.#inner.reset(key);
  }

  /**
   * refund gives `cost` back to the algorithm, then lifts the key's ban when the algorithm now admits
   * the cost whose denial started it: the ban was owed to charges that turned out not to count.
   */
  refund(key: string, now: number, cost: number): void {
    this.#inner.refund(key, now, cost);
    if (this.#left(key, now) === 0) return;
    const stored = storedKey(key);
    const ban = this.#bans.get(stored) as Ban;
    if (ban.cost > 0 && this.#inner.peek(key, now, ban.cost).allowed) this.#bans.delete(stored);
  }

  /** charge charges the algorithm, ban or not, and starts no ban (ban.ts). */
  charge(key: string, now: number, cost: number): Usage {
    const usage = this.#inner.charge(key, now, cost);
    const left = this.#left(key, now);
    return left > 0 ? this.#banned(usage, left) : usage;
  }

  /** usage is the algorithm's usage with the time left in the key's ban. */
  usage(key: string, now: number): Usage {
    const usage = this.#inner.usage(key, now);
    const left = this.#left(key, now);
    return left > 0 ? this.#banned(usage, left) : usage;
  }

  /** block bans `key` until now + ms, or a running ban's later end; no refund lifts it (cost 0). */
  block(key: string, now: number, ms: number): void {
    const left = this.#left(key, now);
    if (left >= ms) {
      const stored = storedKey(key);
      const ban = this.#bans.get(stored) as Ban;
      this.#bans.set(stored, { until: ban.until, cost: 0 });
      return;
    }
    this.#ban(key, now, 0, ms);
  }

  /**
   * banOf is `key`'s ban as held (its end and the cost whose denial started it), or undefined: a store
   * that keeps state beyond this process (a Durable Object's storage) saves it with the key's state.
   */
  banOf(key: string): { readonly until: number; readonly cost: number } | undefined {
    return this.#bans.get(storedKey(key));
  }

  /** restoreBan puts back a ban taken by banOf (after a restart); the key's state is restored apart. */
  restoreBan(key: string, ban: { readonly until: number; readonly cost: number }): void {
    this.#bans.set(storedKey(key), { until: ban.until, cost: ban.cost });
  }

  /** #left is the time left in `key`'s ban at `now` (0 when not banned); an ended ban is dropped. */
  #left(key: string, now: number): number {
    key = storedKey(key);
    const ban = this.#bans.get(key);
    if (ban === undefined) return 0;
    if (now < ban.until) return ban.until - now;
    this.#bans.delete(key);
    return 0;
  }

  #banned(usage: Usage, left: number): Usage {
    return { ...usage, remaining: 0, resetAfterMs: left > usage.resetAfterMs ? left : usage.resetAfterMs, blockedMs: left };
  }

  #ban(key: string, now: number, cost: number, ms = this.#banMs): void {
    if (this.#bans.size >= this.#maxKeys) {
      for (const [k, ban] of this.#bans) if (ban.until <= now || this.#bans.size >= this.#maxKeys) this.#bans.delete(k);
    }
    const stored = storedKey(key);
    this.#bans.delete(stored); // re-inserted last: the Map's order stays the order of the ends
    this.#bans.set(stored, { until: now + ms, cost });
  }
}
