/**
 * Regression: a CompositeLimiter over a synchronous store that is not the MemoryStore (SQLite's is
 * one) called `.then` on consumeAll's answer, which such a store returns as an array: every consume,
 * peek and allow threw a TypeError. A composite answers synchronously on every synchronous store.
 */
import { describe, expect, it } from 'vitest';
import { type Algorithm, CompositeLimiter, type Decision, FixedWindowLimiter, ManualClock, MemoryStore, type Policy, type Store, type StoreBinding } from '../../src/index.js';

/** SyncWrapper is a synchronous store built from the Store contract alone, deciding on a MemoryStore. */
class SyncWrapper implements Store<'sync'> {
  readonly mode = 'sync';
  readonly #inner = new MemoryStore();
  readonly #inners = new Map<StoreBinding<'sync'>, StoreBinding<'sync'>>();

  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): StoreBinding<'sync'> {
    const inner = this.#inner.bind(algorithm, policy);
    const binding: StoreBinding<'sync'> = {
      consume: (key, now, cost) => inner.consume(key, now, cost),
      peek: (key, now, cost) => inner.peek(key, now, cost),
      allow: (key, now, cost) => inner.allow(key, now, cost),
      reset: (key) => inner.reset(key),
    };
    this.#inners.set(binding, inner);
    return binding;
  }

  consumeAll(bindings: readonly StoreBinding<'sync'>[], key: string, now: number, cost: number, commit: boolean): readonly Decision[] {
    return this.#inner.consumeAll(
      bindings.map((b) => this.#inners.get(b) as StoreBinding<'sync'>),
      key,
      now,
      cost,
      commit,
    );
  }
}

describe('a composite on a synchronous store other than memory', () => {
  it('answers consume, peek and allow synchronously, all or nothing', () => {
    const store = new SyncWrapper();
    const clock = new ManualClock(0);
    const composite = new CompositeLimiter([
      new FixedWindowLimiter({ limit: 2, windowMs: 1000, store, clock }),
      new FixedWindowLimiter({ limit: 3, windowMs: 60_000, store, clock }),
    ]);
    expect(composite.consume('k')).toMatchObject({ allowed: true, remaining: 1 });
    expect(composite.allow('k')).toBe(true);
    expect(composite.peek('k')).toMatchObject({ allowed: false });
    expect(composite.allow('k')).toBe(false);
    clock.advance(1000);
    expect(composite.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
  });
});
