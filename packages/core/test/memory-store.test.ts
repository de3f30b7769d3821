/**
 * MemoryStore contracts: a hard `maxKeys` bound per limiter under any flood; the eviction order (empty
 * keys first, then the live keys with the most room: the lowest fill, then the nearest empty instant,
 * then the oldest), so a blocked key outlives a flood of fresh keys on every algorithm, with the
 * default maxKeys; `evictions` counts live evictions only; and no timers or handles, however many keys.
 */
import { describe, expect, it } from 'vitest';
import {
  type Algorithm,
  CompositeLimiter,
  DEFAULT_MAX_KEYS,
  FixedWindowLimiter,
  ManualClock,
  MemoryStore,
  type Policy,
  type RateLimiter,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  type Store,
  TokenBucketLimiter,
} from '../src/index.js';
import { fixedWindow, type MemoryBinding, slidingWindow, tokenBucket, slidingLog } from '../src/store/index.js';
import { emptyInstantOnly } from './mutants/empty-instant-eviction.js';
import { LruStore } from './mutants/lru-store.js';
import { TimerStore } from './mutants/timer-store.js';
import { runTable } from './support/table.js';

const T0 = 1_700_000_000_000;
const ipv4 = (i: number) => `${(i >>> 24) & 255}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const bindingOf = (limiter: { binding: unknown }) => limiter.binding as MemoryBinding;

describe('maxKeys', () => {
  it('holds at 10,000 through 1,000,000 distinct keys, every eviction counted', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock, store: new MemoryStore({ maxKeys: 10_000 }) });
    const table = bindingOf(limiter);
    for (let i = 0; i < 1_000_000; i++) {
      if (i % 100 === 0) clock.advance(1); // a key is empty again 1 s (100,000 keys) later: all evictions are live
      limiter.allow(ipv4(i + 0x0a000000));
      if (i % 10_000 === 9_999) expect(table.size, `after ${i + 1} keys`).toBeLessThanOrEqual(10_000);
    }
    expect(table.size + table.evictions).toBe(1_000_000);
  }, 60_000);

  it('defaults to 100,000 keys per limiter, each named limiter on a store with its own table', () => {
    expect(DEFAULT_MAX_KEYS).toBe(100_000);
    expect(new MemoryStore().maxKeys).toBe(100_000);
    const clock = new ManualClock(T0);
    const store = new MemoryStore({ maxKeys: 10 });
    const a = new FixedWindowLimiter({ limit: 1, windowMs: 1000, clock, store, name: 'a' });
    const b = new FixedWindowLimiter({ limit: 1, windowMs: 1000, clock, store, name: 'b' });
    for (let i = 0; i < 10; i++) expect([a.allow(`k${i}`), b.allow(`k${i}`)]).toEqual([true, true]);
    expect([bindingOf(a).size, bindingOf(b).size, bindingOf(a).evictions]).toEqual([10, 10, 0]);
  });
});

describe('eviction order', () => {
  it('drops empty keys first, then evicts the live key nearest to empty, counting only live evictions', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, clock, store: new MemoryStore({ maxKeys: 4 }) });
    const table = bindingOf(limiter);
    const state = () => [table.size, table.evictions];
    runTable(limiter, clock, T0, [
      { at: 0, key: 'blocked', cost: 10, allowed: true, remaining: 0 }, // empty at +10 s
      { at: 0, key: 'k3', cost: 3, allowed: true }, // empty at +3 s
      { at: 0, key: 'k2', cost: 2, allowed: true }, // empty at +2 s
      { at: 0, key: 'k1', cost: 1, allowed: true }, // empty at +1 s
    ]);
    expect(state()).toEqual([4, 0]);
    runTable(limiter, clock, T0, [{ at: 0, key: 'n1', allowed: true }]); // table full: k1 (nearest) goes
    expect(state()).toEqual([4, 1]);
    runTable(limiter, clock, T0, [
      { at: 0, key: 'k1', op: 'peek', remaining: 9 }, // reset by the eviction
      { at: 0, key: 'k2', op: 'peek', remaining: 7 }, // kept
      { at: 500, key: 'n2', allowed: true }, // n1 (empty at +1 s) is now nearest: it goes
    ]);
    expect(state()).toEqual([4, 2]);
    runTable(limiter, clock, T0, [{ at: 2500, key: 'n3', allowed: true }]); // k2 and n2 are empty: dropped, not counted
    expect(state()).toEqual([3, 2]);
    runTable(limiter, clock, T0, [
      { at: 2500, key: 'blocked', op: 'peek', cost: 3, allowed: false, remaining: 2, retryAfterMs: 500 }, // kept
      { at: 2500, key: 'k3', op: 'peek', remaining: 8 }, // kept: 9.5 tokens
    ]);
  });

  it('evicts the oldest first among keys equally near to empty', () => {
    const clock = new ManualClock(T0);
    const limiter = new FixedWindowLimiter({ limit: 5, windowMs: 1000, clock, store: new MemoryStore({ maxKeys: 3 }) });
    for (const key of ['a', 'b', 'c', 'd']) limiter.consume(key);
    expect(['a', 'b', 'c', 'd'].map((k) => limiter.peek(k).remaining)).toEqual([4, 3, 3, 3]);
  });

  it('evicts the key with more room before one that empties sooner (window: fill first, then the empty instant)', () => {
    const clock = new ManualClock(T0); // T0 is a multiple of 1000: the start of a window
    const limiter = new SlidingWindowLimiter({ limit: 5, windowMs: 1000, clock, store: new MemoryStore({ maxKeys: 2 }) });
    runTable(limiter, clock, T0, [
      { at: 0, key: 'old-heavy', cost: 4, allowed: true }, // empty at +2 s, counts 4 × 0.5 = 2 at +1.5 s
      { at: 1400, key: 'new-light', cost: 1, allowed: true }, // empty at +3 s, counts 1 at +1.5 s
      { at: 1500, key: 'fresh', allowed: true }, // full: 'old-heavy' empties first but holds more: 'new-light' goes
      { at: 1500, key: 'old-heavy', op: 'peek', remaining: 2 }, // kept: 5 − 4 × 0.5 − 1 (rounded up)
      { at: 1500, key: 'new-light', op: 'peek', remaining: 4 }, // reset by the eviction
    ]);
  });

  it.each(Object.keys(VICTIMS))('keeps a blocked %s key blocked through a flood of 200,000 fresh keys', (name) => {
    expect(floodLeavesVictimBlocked(name as keyof typeof VICTIMS, new MemoryStore({ maxKeys: 1000 }))).toBe(true);
  });

  it.each(Object.keys(VICTIMS))('catches, for the %s, an LRU store that evicts the quietly waiting blocked key (mutant)', (name) => {
    expect(floodLeavesVictimBlocked(name as keyof typeof VICTIMS, new LruStore(1000))).toBe(false);
  });

  it.each(Object.keys(VICTIMS))('keeps a blocked %s key blocked through 100,000 fresh keys, default maxKeys', (name) => {
    const victim = defaultFlood(name as keyof typeof VICTIMS);
    expect([victim.allowed, victim.remaining, victim.evictions]).toEqual([false, 0, 3125]);
  });

  it.each(['sliding-window', 'fixed-window', 'sliding-log'] as const)('catches, for the %s, an eviction that ranks by the empty instant alone (mutant)', (name) => {
    const victim = defaultFlood(name, emptyInstantOnly);
    expect([victim.allowed, victim.remaining]).toEqual([true, 4]);
  });
});

/**
 * floodLeavesVictimBlocked drains a victim's limit on `store`, then sends one request from each of
 * 200,000 fresh keys at the same instant, and reports whether the victim is still blocked.
 */
function floodLeavesVictimBlocked(name: keyof typeof VICTIMS, store: Store<'sync'>): boolean {
  const clock = new ManualClock(1_700_000_040_000);
  const limiter = VICTIMS[name](clock, store);
  while (limiter.allow('victim'));
  for (let i = 0; i < 200_000; i++) limiter.allow(ipv4(i));
  return !limiter.peek('victim').allowed;
}

/**
 * defaultFlood blocks `login:victim` on a default MemoryStore (its binding built from the limiter's
 * algorithm, or from `wrap(algorithm)` for a mutant), then sends one request from each of 100,000
 * fresh keys at the same instant, 40 s into a 60 s window, and reports the victim as it then stands.
 */
function defaultFlood(name: keyof typeof VICTIMS, wrap?: (a: Algorithm<Policy>) => Algorithm<Policy>) {
  const clock = new ManualClock(1_700_000_040_000);
  const limiter = VICTIMS[name](clock);
  const algorithm = { 'token-bucket': tokenBucket, 'sliding-window': slidingWindow, 'fixed-window': fixedWindow, 'sliding-log': slidingLog(5) }[name] as Algorithm<Policy>;
  const binding = wrap === undefined ? bindingOf(limiter) : new MemoryStore().bind(wrap(algorithm), limiter.policy);
  const now = clock.now();
  while (binding.allow('login:victim', now, 1));
  for (let i = 0; i < 100_000; i++) binding.allow(ipv4(i), now, 1);
  return { ...binding.peek('login:victim', now, 1), evictions: binding.evictions };
}

/** The four algorithms at limit 5, each on a default MemoryStore unless given a store. */
const VICTIMS = {
  'token-bucket': (clock: ManualClock, store?: Store<'sync'>) => new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock, ...(store && { store }) }),
  'sliding-window': (clock: ManualClock, store?: Store<'sync'>) => new SlidingWindowLimiter({ limit: 5, windowMs: 60_000, clock, ...(store && { store }) }),
  'fixed-window': (clock: ManualClock, store?: Store<'sync'>) => new FixedWindowLimiter({ limit: 5, windowMs: 60_000, clock, ...(store && { store }) }),
  'sliding-log': (clock: ManualClock, store?: Store<'sync'>) => new SlidingLogLimiter({ limit: 5, windowMs: 60_000, clock, ...(store && { store }) }),
};

/** The limiters and a composite, each on its own default store. */
function everyLimiter(clock: ManualClock, store?: () => Store<'sync'>): RateLimiter<'sync'>[] {
  const s = () => (store ? { store: store() } : {});
  return [
    new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock, ...s() }),
    new SlidingWindowLimiter({ limit: 5, windowMs: 1000, clock, ...s() }),
    new FixedWindowLimiter({ limit: 5, windowMs: 1000, clock, ...s() }),
    new CompositeLimiter([new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock }), new FixedWindowLimiter({ limit: 5, windowMs: 60_000, clock })]),
  ];
}

/** resourcesAfterKeys reports the active resource list before and after `count` keys on every limiter. */
function resourcesAfterKeys(count: number, store?: () => Store<'sync'>): [string[], string[]] {
  const before = process.getActiveResourcesInfo().sort();
  const clock = new ManualClock(T0);
  const limiters = everyLimiter(clock, store);
  for (let i = 0; i < count; i++) for (const limiter of limiters) limiter.allow(ipv4(i));
  return [before, process.getActiveResourcesInfo().sort()];
}

describe('no timers and no background work', () => {
  it('holds no timer or handle after 100,000 keys on every limiter', () => {
    const [before, after] = resourcesAfterKeys(100_000);
    expect(after).toEqual(before);
  });

  it('catches a store that expires each key with its own timer (mutant)', () => {
    const stores: TimerStore[] = [];
    try {
      const [before, after] = resourcesAfterKeys(100, () => {
        const store = new TimerStore();
        stores.push(store);
        return store;
      });
      expect(after.length - before.length).toBe(300);
    } finally {
      for (const store of stores) store.close();
    }
  });
});
