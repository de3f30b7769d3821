/**
 * A composite reaches its members' store through the Store contract only (src/store/contract.ts: consumeAll,
 * allowAll, joins), never by asking which class it was given: a store written elsewhere, here one that
 * delegates to memory tables but is not a MemoryStore, backs a composite exactly when it declares what
 * it can decide together. Members on two such stores are refused unless the first `joins` the second;
 * with `joins`, one consumeAll call decides both, all or nothing; without `allowAll`, `allow` takes the
 * consumeAll verdict.
 */
import { describe, expect, it } from 'vitest';
import { type Algorithm, CompositeLimiter, FixedWindowLimiter, ManualClock, MemoryStore, type Policy, type Store, type StoreBinding, TokenBucketLimiter } from '../src/index.js';

/** Delegating is a synchronous store of its own class over memory tables, with the contract's optional members chosen per test. */
class Delegating implements Store<'sync'> {
  readonly mode = 'sync';
  readonly calls: string[] = [];
  readonly #memory = new MemoryStore();
  readonly #joinsOthers: boolean;

  constructor(joinsOthers: boolean) {
    this.#joinsOthers = joinsOthers;
  }

  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): StoreBinding<'sync'> {
    return this.#memory.bind(algorithm, policy);
  }

  consumeAll(bindings: readonly StoreBinding<'sync'>[], key: string, now: number, cost: number, commit: boolean) {
    this.calls.push(`consumeAll ${bindings.length} ${commit}`);
    return this.#memory.consumeAll(bindings, key, now, cost, commit);
  }

  joins(other: Store<'sync'>): boolean {
    return this.#joinsOthers && other instanceof Delegating;
  }
}

const members = (a: Store<'sync'>, b: Store<'sync'>, clock: ManualClock) => [
  new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, name: 'tb', clock, store: a }),
  new FixedWindowLimiter({ limit: 2, windowMs: 60_000, name: 'fw', clock, store: b }),
];

describe('CompositeLimiter through the Store contract', () => {
  it('refuses members on two stores when the first does not join the second', () => {
    const clock = new ManualClock(0);
    expect(() => new CompositeLimiter(members(new Delegating(false), new Delegating(false), clock))).toThrow(
      'CompositeLimiter: members on a remote store must all share one store that supports consumeAll',
    );
  });

  it('decides members on stores the first joins in one consumeAll, all or nothing, and answers allow from it when the store has no allowAll', () => {
    const clock = new ManualClock(0);
    const first = new Delegating(true);
    const second = new Delegating(true);
    const composite = new CompositeLimiter(members(first, second, clock));
    expect([composite.consume('k').allowed, composite.consume('k').allowed, composite.allow('k')]).toEqual([true, true, false]);
    // The fixed window (limit 2) denied the third: the token bucket spent nothing for it.
    expect(composite.peek('k').parts?.map((p) => p.remaining)).toEqual([1, 0]);
    expect(first.calls).toEqual(['consumeAll 2 true', 'consumeAll 2 true', 'consumeAll 2 true', 'consumeAll 2 false']);
    expect(second.calls).toEqual([]);
  });

  it('keeps members on different memory stores together (the memory store joins every memory store)', () => {
    const clock = new ManualClock(0);
    const composite = new CompositeLimiter(members(new MemoryStore(), new MemoryStore(), clock));
    expect([composite.allow('k'), composite.allow('k'), composite.allow('k')]).toEqual([true, true, false]);
    expect(composite.peek('k').parts?.map((p) => p.remaining)).toEqual([1, 0]);
  });
});
