/**
 * BanLimiter on the memory store: "5 failed attempts per 15 minutes, then blocked for an hour" as a
 * table at fixed instants; during the ban every request is denied with the exact time left (honest
 * Retry-After) and changes nothing (not the ban's end, not the window: a ban binding that restarts the
 * ban on every denial inside it is caught, mutant); the ban ends exactly at start + banMs; a cost no
 * policy can grant bans nobody; peek starts nothing; reset lifts it; options checked at construction.
 */
import { describe, expect, it } from 'vitest';
import { BanLimiter, type Decision, FixedWindowLimiter, ManualClock, MemoryStore, type StoreBinding, TokenBucketLimiter } from '../src/index.js';
import { rebanOnDenial } from './mutants/reban-on-denial.js';

const T0 = 1_700_000_000_000 - (1_700_000_000_000 % 900_000);
const MIN = 60_000;
const HOUR = 60 * MIN;

/** steps replays [at ms after T0, want allowed, want retryAfterMs] rows through `consume`. */
function steps(clock: ManualClock, consume: () => Decision, rows: readonly (readonly [number, boolean, number])[]): string[] {
  const failures: string[] = [];
  rows.forEach(([at, allowed, retry], i) => {
    clock.set(T0 + at);
    const d = consume();
    if (d.allowed !== allowed || d.retryAfterMs !== retry) failures.push(`step ${i} at +${at}: want ${allowed}/${retry}, got ${d.allowed}/${d.retryAfterMs}`);
  });
  return failures;
}

const LOGIN_ROWS = [
  [0, true, 0],
  [1_000, true, 0],
  [2_000, true, 0],
  [3_000, true, 0],
  [4_000, true, 0],
  [5_000, false, HOUR], // the sixth attempt in the window: banned for an hour from now
  [10 * MIN, false, HOUR - 10 * MIN + 5_000], // denials inside the ban change nothing…
  [16 * MIN, false, HOUR - 16 * MIN + 5_000], // …even after the window has rolled over
  [HOUR + 4_999, false, 1],
  [HOUR + 5_000, true, 0], // …so the ban ends exactly on time, with a fresh window
] as const;

const login = (clock: ManualClock) => new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 5, windowMs: 15 * MIN, name: 'login', clock }), banMs: HOUR });

describe('BanLimiter on memory', () => {
  it('bans for an hour after five attempts in fifteen minutes, and denials inside the ban change nothing', () => {
    const clock = new ManualClock(T0);
    const limiter = login(clock);
    expect(steps(clock, () => limiter.consume('alice'), LOGIN_ROWS)).toEqual([]);
    expect(limiter.consume('bob').allowed).toBe(true);
  });

  it('the same table catches bans that restart on every denial inside them (mutant)', () => {
    const clock = new ManualClock(T0);
    const inner = new FixedWindowLimiter({ limit: 5, windowMs: 15 * MIN, name: 'login', clock });
    const banned: StoreBinding<'sync'> = rebanOnDenial(inner.binding as never, HOUR);
    expect(steps(clock, () => banned.consume('alice', clock.now(), 1), LOGIN_ROWS)).not.toEqual([]);
  });

  it('answers a ban with remaining 0 and reset at the ban’s end, for honest headers', () => {
    const clock = new ManualClock(T0);
    const limiter = login(clock);
    for (let i = 0; i < 6; i++) limiter.consume('k');
    clock.advance(90_000);
    expect(limiter.consume('k')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: HOUR - 90_000, resetAfterMs: HOUR - 90_000, limit: 5 });
  });

  it('bans nobody for a cost no policy can grant; peek starts nothing; reset lifts a ban', () => {
    const clock = new ManualClock(T0);
    const limiter = new BanLimiter({ limiter: new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock }), banMs: 10_000 });
    expect(limiter.consume('k', 3).retryAfterMs).toBe(Infinity);
    expect(limiter.consume('k', 2).allowed).toBe(true);
    expect(limiter.peek('k')).toMatchObject({ allowed: false, retryAfterMs: 10_000 });
    clock.advance(1_000);
    expect(limiter.consume('k').allowed).toBe(true); // the peek banned nobody
    expect(limiter.consume('k').retryAfterMs).toBe(10_000);
    limiter.reset('k');
    expect(limiter.consume('k').allowed).toBe(true);
  });

  it('checks its options at construction', () => {
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 1000 });
    expect(() => new BanLimiter({ limiter, banMs: 0 })).toThrowError(new RangeError('BanLimiter: banMs must be a positive integer, got 0'));
    expect(() => new BanLimiter({ limiter: {} as never, banMs: 1 })).toThrowError(new TypeError('BanLimiter: limiter must be a single-policy ratekeeper limiter, got an object'));
    expect(() => new BanLimiter(null as never)).toThrowError(TypeError);
  });

  it('holds at most maxKeys bans, dropping those nearest their end first', () => {
    const clock = new ManualClock(T0);
    const store = new MemoryStore({ maxKeys: 3 });
    const limiter = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 1, windowMs: HOUR, clock, store }), banMs: HOUR });
    for (const k of ['a', 'b', 'c', 'd']) {
      limiter.consume(k);
      limiter.consume(k);
      clock.advance(1);
    }
    // 'a', banned first, was dropped (with its window, by the table's own bound) to hold 'd'.
    expect(['a', 'b', 'c', 'd'].map((k) => limiter.peek(k).retryAfterMs)).toEqual([0, HOUR - 3, HOUR - 2, HOUR - 1]);
  });
});

describe('a ban saved and restored (MemoryBans.banOf, restoreBan)', () => {
  it('carries a ban into a fresh store: the same denials, the same end, the same lift by refund', () => {
    const clock = new ManualClock(T0);
    const first = new MemoryStore();
    const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 15 * MIN, name: 'login', clock, store: first });
    const bans = first.banned(limiter.binding as StoreBinding<'sync'>, HOUR);
    bans.consume('k', T0, 1);
    bans.consume('k', T0, 1);
    expect(bans.consume('k', T0 + 1_000, 1)).toMatchObject({ allowed: false, retryAfterMs: HOUR });
    const saved = bans.banOf('k');
    expect(saved).toEqual({ until: T0 + 1_000 + HOUR, cost: 1 });
    expect(bans.banOf('never banned')).toBeUndefined();

    const second = new MemoryStore();
    const again = new FixedWindowLimiter({ limit: 2, windowMs: 15 * MIN, name: 'login', clock, store: second });
    const restored = second.banned(again.binding as StoreBinding<'sync'>, HOUR);
    restored.restoreBan('k', saved as NonNullable<typeof saved>);
    expect(restored.consume('k', T0 + 2_000, 1)).toMatchObject({ allowed: false, retryAfterMs: HOUR - 1_000 });
    expect(restored.consume('k', T0 + 1_000 + HOUR, 1)).toMatchObject({ allowed: true });
  });
});
