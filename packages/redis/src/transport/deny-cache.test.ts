/**
 * DenyCache in front of a deciding store changes no decision in one process: random histories of
 * (key, cost, time step) on each algorithm, decided once by the memory store alone and once by the
 * memory store behind a DenyCache (asked first, fed every answer), must agree on every verdict; every
 * cached answer's Retry-After must be the store's own for that instant or later, never earlier. A
 * cache that also answers smaller costs (the mutant) must be caught by the same property.
 */
import { FixedWindowLimiter, type Decision, ManualClock, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DenyCache } from './deny-cache.js';

/** MUTANT: ignores the cost, as if a denial of 5 meant that 1 was denied too. */
class AnyCostCache extends DenyCache {
  override answer(key: string, _cost: number, now: number): Decision | undefined {
    return super.answer(key, 1, now);
  }
  override remember(key: string, _cost: number, sentAt: number, arrivedAt: number, decision: Decision): void {
    super.remember(key, 1, sentAt, arrivedAt, decision);
  }
}

/** MUTANT: remembers every denial, as when a forget dropped only what was already remembered. */
class StamplessCache extends DenyCache {
  override remember(key: string, cost: number, sentAt: number, arrivedAt: number, decision: Decision): void {
    super.remember(key, cost, sentAt, arrivedAt, decision);
  }
}

const limiters = {
  'token-bucket': (clock: ManualClock) => new TokenBucketLimiter({ capacity: 5, refillPerSecond: 2, clock }),
  'sliding-window': (clock: ManualClock) => new SlidingWindowLimiter({ limit: 5, windowMs: 1000, clock }),
  'fixed-window': (clock: ManualClock) => new FixedWindowLimiter({ limit: 5, windowMs: 1000, clock }),
};
const history = fc.array(fc.record({ key: fc.constantFrom('a', 'b'), cost: fc.integer({ min: 1, max: 6 }), stepMs: fc.constantFrom(0, 0, 1, 7, 50, 130, 499) }), { maxLength: 60 });

function agrees(make: () => DenyCache) {
  return fc.property(fc.constantFrom(...(Object.keys(limiters) as (keyof typeof limiters)[])), history, (algorithm, steps) => {
    const clockA = new ManualClock(1_000_000);
    const clockB = new ManualClock(1_000_000);
    const alone = limiters[algorithm](clockA);
    const behind = limiters[algorithm](clockB);
    const cache = make();
    for (const [i, { key, cost, stepMs }] of steps.entries()) {
      clockA.advance(stepMs);
      clockB.advance(stepMs);
      const want = alone.consume(key, cost);
      const now = clockB.now();
      const cached = cache.answer(key, cost, now);
      const got = cached ?? behind.consume(key, cost);
      if (cached === undefined) cache.remember(key, cost, now, now, got);
      if (got.allowed !== want.allowed) throw new Error(`step ${i} (${key}, cost ${cost}): want allowed ${want.allowed}, got ${got.allowed}${cached ? ' from the cache' : ''}`);
      if (cached !== undefined && cached.retryAfterMs < want.retryAfterMs)
        throw new Error(`step ${i}: cached Retry-After ${cached.retryAfterMs} ms is earlier than ${want.retryAfterMs} ms`);
    }
  });
}

describe('DenyCache', () => {
  it('changes no verdict and never shortens a wait, for every algorithm', () => {
    fc.assert(
      agrees(() => new DenyCache()),
      { numRuns: 500 },
    );
  });

  it('catches a cache that answers smaller costs', () => {
    const run = fc.check(
      agrees(() => new AnyCostCache()),
      { numRuns: 500 },
    );
    expect(run.failed).toBe(true);
    expect(String(run.errorInstance)).toMatch(/from the cache|earlier than/);
  });

  it('answers a denied key until the send instant + the wait, then asks again', () => {
    const cache = new DenyCache();
    const denied = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) });
    denied.consume('k');
    const d = denied.consume('k');
    cache.remember('k', 1, 100, 103, d);
    expect(cache.answer('k', 1, 1099)).toMatchObject({ allowed: false, retryAfterMs: 4 });
    expect(cache.answer('k', 1, 1100)).toBeUndefined();
    expect([cache.size, cache.hits]).toEqual([0, 1]);
  });

  it('keeps at most maxEntries keys, sweeping expired ones to make room', () => {
    const cache = new DenyCache(16);
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 1000, clock: new ManualClock(0) });
    const denial = (key: string) => (limiter.consume(key), limiter.consume(key));
    for (let i = 0; i < 100; i++) cache.remember(`k${i}`, 1, 0, 0, denial(`k${i}`));
    expect(cache.size).toBe(16);
    for (let i = 0; i < 100; i++) cache.remember(`late${i}`, 1, 2000, 2000, { ...denial(`late${i}`), retryAfterMs: 500 });
    expect(cache.size).toBe(16);
    expect(Array.from({ length: 100 }, (_, i) => cache.answer(`late${i}`, 1, 2100)).filter((d) => d !== undefined).length).toBe(16);
  });

  it('does not keep allowed answers, failure-policy answers or costs no policy can grant', () => {
    const cache = new DenyCache();
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) });
    cache.remember('a', 1, 0, 0, limiter.consume('a'));
    cache.remember('b', 9, 0, 0, limiter.consume('b', 9));
    cache.remember('c', 1, 0, 0, { ...limiter.consume('a'), failure: 'fallback' });
    expect(cache.size).toBe(0);
  });

  /** voidsLateDenials: a denial sent before a forget of its key is not remembered, also past the forgets kept. */
  function voidsLateDenials(cache: DenyCache): boolean {
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) });
    limiter.consume('a');
    const denial = limiter.consume('a');
    const before = cache.stamp();
    cache.forget('a');
    cache.remember('a', 1, 0, 0, denial, before);
    cache.remember('b', 1, 0, 0, denial, before); // a forget of a says nothing of b
    if (cache.answer('a', 1, 0) !== undefined || cache.size !== 1) return false;
    const early = cache.stamp();
    cache.forget('c');
    cache.forget('d'); // no room for d's forget: the forgets kept are dropped, every call sent before is void
    cache.remember('a', 1, 0, 0, denial, early);
    if (cache.answer('a', 1, 0) !== undefined) return false;
    cache.remember('a', 1, 0, 0, denial, cache.stamp());
    return cache.answer('a', 1, 0)?.allowed === false;
  }

  it('does not remember a denial sent before a forget of its key, also once the forgets were too many to keep', () => {
    expect(voidsLateDenials(new DenyCache(2))).toBe(true);
    expect(voidsLateDenials(new StamplessCache(2))).toBe(false);
  });
});
