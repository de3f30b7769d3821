/**
 * MemoryStore: the default, in-process store. Synchronous, bounded, with no timers and no background
 * work. Each policy name bound to it gets its own table (limiters given one name with the same settings
 * share it, as they share keys on a remote store), a MemoryBinding (memory-binding.ts, which says how
 * keys are held, swept and evicted); a composite's all-or-nothing pass is memory-all.ts, bookings
 * memory-reserve.ts, bans memory-ban.ts. This file holds the store's options and wires them together.
 */
import type { Algorithm } from '../algorithm.js';
import type { Decision } from '../decision.js';
import { type Policy, samePolicy } from '../policy.js';
import type { Booking, Store, StoreBinding } from '../store/contract.js';
import { optionsObject, positiveInteger, refuseUnknown } from '../validate.js';
import { MemoryBinding } from './memory-binding.js';
import { allowAll, decideAll } from './memory-all.js';
import { MemoryBans } from './memory-ban.js';
import { bookAll } from './memory-reserve.js';

export interface MemoryStoreOptions {
  /** The most keys each limiter bound to this store keeps (default 100,000). */
  readonly maxKeys?: number;
}

export const DEFAULT_MAX_KEYS = 100_000;
const MEMORY_STORE_OPTIONS: ReadonlySet<string> = new Set(['maxKeys']);

export class MemoryStore implements Store<'sync'> {
  readonly mode = 'sync';
  readonly maxKeys: number;
  // Held weakly: a table lives as long as a limiter deciding through it, never because of its name.
  readonly #bindings = new Map<string, WeakRef<MemoryBinding>>();
  readonly #dropped = new FinalizationRegistry<string>((name) => {
    if (this.#bindings.get(name)?.deref() === undefined) this.#bindings.delete(name);
  });

  constructor(options?: MemoryStoreOptions) {
    const o = optionsObject('MemoryStore', options);
    refuseUnknown('MemoryStore', o, MEMORY_STORE_OPTIONS);
    const { maxKeys = DEFAULT_MAX_KEYS } = o;
    this.maxKeys = positiveInteger('MemoryStore', 'maxKeys', maxKeys);
  }

  /**
   * bind gives each policy name its own table, and a name bound again with the same settings the same
   * table: one name is one budget, as on a remote store (../limiter/store-names.ts refuses the accidental cases).
   */
  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): MemoryBinding<P> {
    const earlier = this.#bindings.get(policy.name)?.deref();
    if (earlier !== undefined && samePolicy(earlier.policy, policy)) return earlier as unknown as MemoryBinding<P>;
    const binding = new MemoryBinding(algorithm, policy, this.maxKeys);
    this.#bindings.set(policy.name, new WeakRef(binding as unknown as MemoryBinding));
    this.#dropped.register(binding, policy.name);
    return binding;
  }

  consumeAll(bindings: readonly StoreBinding<'sync'>[], key: string, now: number, cost: number, commit: boolean): readonly Decision[] {
    return decideAll(bindings as readonly MemoryBinding[], key, now, cost, commit);
  }

  /** allowAll is consumeAll's verdict only; it allocates nothing after a key's first request (memory-all.ts). */
  allowAll(bindings: readonly StoreBinding<'sync'>[], key: string, now: number, cost: number): boolean {
    return allowAll(bindings as readonly MemoryBinding[], key, now, cost);
  }

  /** joins: every memory store, since each binding keeps its own table; one pass decides them all or nothing. */
  joins(other: Store<'sync'>): boolean {
    return other instanceof MemoryStore;
  }

  /** reserveAll books a request on these bindings (memory-reserve.ts; contract in reserve.ts). */
  reserveAll(bindings: readonly StoreBinding<'sync'>[], key: string, now: number, cost: number, maxWaitMs: number): Booking<'sync'> {
    return bookAll(bindings as readonly MemoryBinding[], key, now, cost, maxWaitMs);
  }

  /**
   * banned puts a ban in front of one of this store's bindings (Store.banned, the contract's ban capability: ban.ts, memory-ban.ts). BanLimiter calls it.
   * @internal
   */
  banned(binding: StoreBinding<'sync'>, banMs: number): MemoryBans {
    const inner = binding as MemoryBinding;
    return new MemoryBans(inner, inner.policy, banMs, this.maxKeys);
  }
}
