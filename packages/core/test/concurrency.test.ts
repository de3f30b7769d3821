/**
 * Concurrency limit contracts: at most `limit` units leased per key at any moment, a lease returned
 * only by a release (never by time), releases never below zero, a denial changing nothing and
 * suggesting the retryAfterMs hint, a cost above the limit never satisfiable. On the memory store a key
 * holding leases survives any flood of fresh keys (attacker load), and a full table of held keys denies
 * a new key instead of admitting it uncounted. Each guarantee has a mutant it must catch.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Algorithm, BanLimiter, ConcurrencyLimiter, type ConcurrencyPolicy, ManualClock, MemoryStore, reserve } from '../src/index.js';
import { MemoryBinding, concurrency } from '../src/store/index.js';
import { concurrencyPolicy } from '../src/policy.js';
import { evictableConcurrency, negativeRelease, timeExpiringLeases } from './mutants/concurrency-defects.js';
import { AsyncMemoryStore } from './support/async-store.js';
import { runTable } from './support/table.js';

const T0 = 1_700_000_000_000;

describe('concurrency tables', () => {
  it('admits up to the limit in flight, and again after a release', () => {
    const clock = new ManualClock(T0);
    const limiter = new ConcurrencyLimiter({ limit: 3, clock });
    runTable(limiter, clock, T0, [
      { at: 0, allowed: true, remaining: 2, resetAfterMs: 1000 },
      { at: 0, cost: 2, allowed: true, remaining: 0 },
      { at: 0, allowed: false, remaining: 0, retryAfterMs: 1000, resetAfterMs: 1000 },
      { at: 3_600_000, allowed: false, remaining: 0, retryAfterMs: 1000 },
      { at: 3_600_000, cost: 4, allowed: false, remaining: 0, retryAfterMs: Infinity },
    ]);
    limiter.release('k');
    runTable(limiter, clock, T0, [
      { at: 3_600_000, op: 'peek', allowed: true, remaining: 0 },
      { at: 3_600_000, allowed: true, remaining: 0 },
      { at: 3_600_000, allowed: false },
    ]);
    limiter.release('k', 3);
    runTable(limiter, clock, T0, [{ at: 3_600_001, cost: 3, allowed: true, remaining: 0 }]);
  });

  it('never goes below zero: releases without leases do nothing', () => {
    const clock = new ManualClock(T0);
    const limiter = new ConcurrencyLimiter({ limit: 2, retryAfterMs: 250, clock });
    limiter.release('k', 5);
    limiter.refund('k', 1);
    runTable(limiter, clock, T0, [
      { at: 0, allowed: true, remaining: 1 },
      { at: 0, allowed: true, remaining: 0 },
      { at: 0, allowed: false, retryAfterMs: 250 },
    ]);
  });

  it('refund is release, reset drops every lease, and keys are independent', () => {
    const limiter = new ConcurrencyLimiter({ limit: 1 });
    expect(limiter.allow('a')).toBe(true);
    expect(limiter.allow('b')).toBe(true);
    expect(limiter.allow('a')).toBe(false);
    limiter.refund('a');
    expect(limiter.allow('a')).toBe(true);
    limiter.reset('a');
    expect(limiter.allow('a')).toBe(true);
    expect(limiter.allow('b')).toBe(false);
  });

  it('refuses reserve and wait: no instant at which a lease returns is known', () => {
    expect(() => reserve(new ConcurrencyLimiter({ limit: 1 }), 'k')).toThrowError(
      new TypeError('reserve: a ConcurrencyLimiter cannot book a future instant (a lease returns when a request ends); use allow and release'),
    );
  });

  it('refuses a ban in front of a concurrency limit (its release would be hidden)', () => {
    expect(() => new BanLimiter({ limiter: new ConcurrencyLimiter({ limit: 1 }), banMs: 1000 })).toThrowError(
      new TypeError('BanLimiter: bans apply to rate limits, not to a ConcurrencyLimiter'),
    );
  });

  it('has a policy with no window and the limit as its quota', () => {
    const limiter = new ConcurrencyLimiter({ limit: 7, name: 'inflight' });
    expect(limiter.policy).toEqual({ algorithm: 'concurrency', name: 'inflight', limit: 7, windowMs: 0, retryAfterMs: 1000 });
    expect(new ConcurrencyLimiter({ limit: 7 }).policy.name).toBe('cc-7');
  });

  it('refuses bad options at construction, naming the class, the option and the value', () => {
    expect(() => new ConcurrencyLimiter({ limit: 0 })).toThrowError(new RangeError('ConcurrencyLimiter: limit must be a positive integer, got 0'));
    expect(() => new ConcurrencyLimiter({ limit: 1.5 })).toThrowError(new RangeError('ConcurrencyLimiter: limit must be a positive integer, got 1.5'));
    expect(() => new ConcurrencyLimiter({ limit: 2, retryAfterMs: -1 })).toThrowError(new RangeError('ConcurrencyLimiter: retryAfterMs must be a positive integer, got -1'));
    expect(() => new ConcurrencyLimiter({ limit: 2, retryAfterMs: '1s' as never })).toThrowError(
      new TypeError('ConcurrencyLimiter: retryAfterMs must be a positive integer, got "1s"'),
    );
    expect(() => new ConcurrencyLimiter({ limit: 2, windowMs: 1000 } as never)).toThrowError(TypeError);
    expect(() => new ConcurrencyLimiter(undefined as never)).toThrowError(TypeError);
  });

  it('refuses a store that cannot release a lease (its bindings have no refund), which would keep every lease forever', () => {
    const store = new AsyncMemoryStore(); // the public Store contract with no refund
    expect(() => new ConcurrencyLimiter({ limit: 1, store })).toThrowError(
      new TypeError('ConcurrencyLimiter: store must be able to release leases (its bindings need refund), got an object'),
    );
  });
});

type Move = { kind: 'take' | 'release'; key: number; cost: number; at: number };
const moves = fc.array(
  fc.record({
    kind: fc.constantFrom('take' as const, 'release' as const),
    key: fc.integer({ min: 0, max: 2 }),
    cost: fc.integer({ min: 1, max: 4 }),
    at: fc.integer({ min: -5000, max: 5000 }),
  }),
  { maxLength: 80 },
);

/** matchesModel: every decision equals a model's count of leases in flight, whatever the clock does. */
function matchesModel(algorithm: Algorithm<ConcurrencyPolicy>) {
  return fc.property(fc.integer({ min: 1, max: 5 }), moves, (limit, history: Move[]) => {
    const binding = new MemoryBinding(algorithm, concurrencyPolicy(limit, 1000), 100);
    const held = [0, 0, 0];
    let now = T0;
    for (const [i, m] of history.entries()) {
      now += m.at;
      const key = `k${m.key}`;
      if (m.kind === 'release') {
        binding.refund(key, now, m.cost);
        held[m.key] = Math.max(0, (held[m.key] as number) - m.cost);
        continue;
      }
      const d = binding.consume(key, now, m.cost);
      const fits = (held[m.key] as number) + m.cost <= limit;
      if (fits) held[m.key] = (held[m.key] as number) + m.cost;
      const want = `${fits}/${limit - (held[m.key] as number)}/${fits ? 0 : m.cost > limit ? Infinity : 1000}`;
      const got = `${d.allowed}/${d.remaining}/${d.retryAfterMs}`;
      if (want !== got) throw new Error(`step ${i} (${m.kind} ${key} ${m.cost}): want ${want} got ${got}`);
    }
  });
}

describe('concurrency properties', () => {
  it('decides exactly by the leases in flight: never above the limit, releases never below zero, time changes nothing', () => {
    fc.assert(matchesModel(concurrency), { numRuns: 300 });
  });

  it('the property catches a release below zero (mutant)', () => {
    expect(() => fc.assert(matchesModel(negativeRelease), { numRuns: 300 })).toThrow(/Property failed/);
  });
});

/**
 * flood: key "victim" takes one lease of two, then `fresh` keys each take one (the same fill, so only
 * pinning protects the victim, the oldest) and, when `release`, return it; the victim then asks for two.
 */
function flood(algorithm: Algorithm<ConcurrencyPolicy>, fresh: number, release: boolean) {
  const clock = new ManualClock(T0);
  const store = new MemoryStore({ maxKeys: 64 });
  const binding = store.bind(algorithm, concurrencyPolicy(2, 1000));
  expect(binding.consume('victim', clock.now(), 1).allowed).toBe(true);
  let admitted = 0;
  for (let i = 0; i < fresh; i++) {
    clock.advance(1000);
    if (binding.allow(`attacker-${i}`, clock.now(), 1)) admitted++;
    if (release) binding.refund(`attacker-${i}`, clock.now(), 1);
  }
  return { victim: binding.consume('victim', clock.now(), 2), admitted, size: binding.size, evictions: binding.evictions };
}

describe('concurrency on the memory store under a key flood', () => {
  it('keeps a key holding leases through a flood of fresh keys that come and go', () => {
    const { victim, admitted, size } = flood(concurrency, 10_000, true);
    expect(victim.allowed).toBe(false);
    expect(admitted).toBe(10_000);
    expect(size).toBeLessThanOrEqual(64);
  });

  it('keeps every key holding leases when the flood holds its leases, and denies new keys once the table is full', () => {
    const { victim, admitted, size, evictions } = flood(concurrency, 10_000, false);
    expect(victim.allowed).toBe(false);
    expect(admitted).toBe(63);
    expect(size).toBe(64);
    expect(evictions).toBe(0);
  });

  it('the flood catches a store that may evict a key holding leases (mutant)', () => {
    expect(flood(evictableConcurrency, 10_000, false).victim.allowed).toBe(true);
  });

  it('the flood catches leases that expire with time (mutant)', () => {
    expect(flood(timeExpiringLeases, 10_000, true).victim.allowed).toBe(true);
  });

  it('a full table of held keys answers a new key as full, with the hint, and a cost above the limit as never satisfiable', () => {
    const store = new MemoryStore({ maxKeys: 2 });
    const limiter = new ConcurrencyLimiter({ limit: 3, store, retryAfterMs: 50 });
    expect(limiter.allow('a')).toBe(true);
    expect(limiter.allow('b')).toBe(true);
    expect(limiter.consume('c')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 50 });
    expect(limiter.consume('c', 4)).toMatchObject({ allowed: false, retryAfterMs: Infinity });
    limiter.release('a');
    expect(limiter.consume('c')).toMatchObject({ allowed: true, remaining: 2 });
  });
});
