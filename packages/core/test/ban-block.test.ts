/**
 * BanLimiter.block on the memory store (rate-limiter-flexible's `block(key, secDuration)`): a key is
 * banned directly for a duration; decisions during it are denied with the exact time left (honest
 * Retry-After); `usage` reports the time left as `blockedMs`; a block never shortens a running ban;
 * no refund lifts it (a refund lifts a ban a denial started, not a block); `reset` does. Every process
 * sharing a store sees a block: the store contract suite (packages/store-contract) checks that on every
 * shared store, across two store instances on one database.
 */
import { describe, expect, it } from 'vitest';
import { BanLimiter, FixedWindowLimiter, ManualClock, MemoryStore } from '../src/index.js';

const T0 = 1_700_000_100_000;
const MIN = 60_000;

function banLimiter(clock: ManualClock, store = new MemoryStore()) {
  return new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 3, windowMs: MIN, name: 'login', clock, store }), banMs: 10 * MIN });
}

describe('BanLimiter.block', () => {
  it('denies every decision for the block, with the exact time left, then admits on time', () => {
    const clock = new ManualClock(T0);
    const l = banLimiter(clock);
    expect(l.blockable).toBe(true);
    l.block('k', 30_000);
    expect(l.consume('k')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 30_000, resetAfterMs: 30_000 });
    expect(l.usage('k')).toMatchObject({ used: 0, remaining: 0, blockedMs: 30_000, resetAfterMs: 30_000 });
    clock.advance(29_999);
    expect(l.peek('k')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    clock.advance(1);
    expect(l.consume('k')).toMatchObject({ allowed: true, remaining: 2 });
    expect(l.usage('k')).toMatchObject({ used: 1, remaining: 2, blockedMs: 0 });
  });

  it('never shortens a running ban, and extends a shorter one', () => {
    const clock = new ManualClock(T0);
    const l = banLimiter(clock);
    l.block('k', 60_000);
    l.block('k', 1_000);
    expect(l.consume('k').retryAfterMs).toBe(60_000);
    clock.advance(10_000);
    l.block('k', 120_000);
    expect(l.consume('k').retryAfterMs).toBe(120_000);
  });

  it('no refund lifts a block; reset does', () => {
    const clock = new ManualClock(T0);
    const l = banLimiter(clock);
    l.consume('k');
    l.block('k', 60_000);
    l.refund('k', 1);
    expect(l.consume('k').retryAfterMs).toBe(60_000);
    l.reset('k');
    expect(l.consume('k').allowed).toBe(true);
  });

  it('a denial during a block starts nothing, and the wrapped limiter is untouched by it', () => {
    const clock = new ManualClock(T0);
    const l = banLimiter(clock);
    l.block('k', 5_000);
    for (let i = 0; i < 5; i++) l.consume('k');
    clock.advance(5_000);
    expect(l.usage('k')).toMatchObject({ used: 0, blockedMs: 0 });
  });

  it('charge adds to the wrapped limiter during a block and starts no ban of its own', () => {
    const clock = new ManualClock(T0);
    const l = banLimiter(clock);
    expect(l.charge('k', 5)).toMatchObject({ used: 5, remaining: 0, blockedMs: 0 });
    expect(l.usage('k').blockedMs).toBe(0);
    expect(l.consume('k')).toMatchObject({ allowed: false, retryAfterMs: 10 * MIN }); // the denial starts the ban
    expect(l.usage('k')).toMatchObject({ used: 5, blockedMs: 10 * MIN });
  });

  it('is refused by name on a bad duration', () => {
    const l = banLimiter(new ManualClock(T0));
    expect(() => l.block('k', 0)).toThrow(new RangeError("BanLimiter: block's ms must be a positive integer, got 0"));
    expect(() => l.block('k', 1.5)).toThrow(RangeError);
    expect(() => l.block('k', '10' as unknown as number)).toThrow(TypeError);
  });
});
