/**
 * reserve and wait on the memory store: never early (the granted requests, replayed at their instants
 * on a fresh limiter, are all admitted), first come first served per key, a failed reservation and a
 * cancelled one leave no trace, a cost above the limit fails at once; wait resolves at the booked
 * instant and rejects at once when it never could, or when aborted. Fake timers, no sleeping.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, type Reservation, SlidingLogLimiter, TokenBucketLimiter, WaitError, reserve, wait } from '../src/index.js';
import { type MemoryBinding, CANCELLABLE_BOOKINGS } from '../src/store/index.js';
import { type ReserveFn, eagerCancelReserve, lastOnlyCancelReserve, queueJumpingReserve } from './mutants/reserve-defects.js';
import { AsyncMemoryStore } from './support/async-store.js';
import { anyCase, clockStep, costFor, startInstant } from './support/arbitraries.js';
import type { Case } from './support/subjects.js';

const T0 = 1_700_000_000_000;
const real: ReserveFn = (limiter, key, cost, options) => reserve(limiter, key, cost, options);

afterEach(() => {
  vi.useRealTimers();
});

describe('reserve', () => {
  it('books each request at the first instant it may go, in arrival order, on a bucket of 2 at 1 per second', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock });
    const delays = [1, 1, 1, 1].map(() => reserve(limiter, 'k').delayMs);
    expect(delays).toEqual([0, 0, 1000, 2000]);
    expect(reserve(limiter, 'k', 3)).toMatchObject({ ok: false, delayMs: Infinity, decision: { retryAfterMs: Infinity } });
    expect(reserve(limiter, 'k', 1, { maxWaitMs: 2999 })).toMatchObject({ ok: false, decision: { retryAfterMs: 3000 } });
    expect(reserve(limiter, 'k').delayMs).toBe(3000); // the failures left no trace
  });

  it("reset forgets the key's bookings with its state: the next reservation goes at once, as on an empty key", () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    expect([1, 1, 1].map(() => reserve(limiter, 'k').delayMs)).toEqual([0, 1000, 2000]);
    limiter.reset('k');
    expect(reserve(limiter, 'k').delayMs).toBe(0);
    const long = 'k'.repeat(100); // kept as a digest: reset must forget the booking by the same stored key
    expect([1, 1].map(() => reserve(limiter, long).delayMs)).toEqual([0, 1000]);
    limiter.reset(long);
    expect(reserve(limiter, long).delayMs).toBe(0);
  });

  it('serves first come first: a small request waits behind a large one booked before it', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock });
    expect(reserve(limiter, 'k', 5).delayMs).toBe(0);
    expect(reserve(limiter, 'k', 5).delayMs).toBe(5000);
    expect(reserve(limiter, 'k', 1).delayMs).toBe(6000);
  });

  it('never sends a request before its window: the sliding log books the next one when the oldest leaves', () => {
    const clock = new ManualClock(T0);
    const limiter = new SlidingLogLimiter({ limit: 2, windowMs: 1000, clock });
    expect([0, 0, 0, 0, 0].map(() => reserve(limiter, 'k').delayMs)).toEqual([0, 0, 1000, 1000, 2000]);
  });

  it('cancel gives the units back before the instant, once, and the bookings behind keep their instants', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    reserve(limiter, 'k');
    const second = reserve(limiter, 'k');
    expect(second.delayMs).toBe(1000);
    expect(second.cancel()).toBe(true);
    expect(second.cancel()).toBe(false);
    const third = reserve(limiter, 'k');
    expect(third.delayMs).toBe(1000);
    const fourth = reserve(limiter, 'k');
    expect(fourth.delayMs).toBe(2000);
    expect(third.cancel()).toBe(true); // the fourth still goes at +2 s…
    // …and a bucket of one unit is full again by then whether the third went or not: nothing to give back.
    expect([reserve(limiter, 'k').delayMs, reserve(limiter, 'k').delayMs]).toEqual([3000, 4000]);
    clock.advance(2000);
    expect(fourth.cancel()).toBe(false); // its instant has come
  });

  it('gives back exactly what the cancelled booking took: the key as if it had never been booked', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 10, clock });
    const binding = limiter.binding as MemoryBinding;
    const booked = Array.from({ length: 8 }, () => reserve(limiter, 'k'));
    expect(booked.map((r) => r.delayMs)).toEqual([0, 0, 100, 200, 300, 400, 500, 600]);
    for (const i of [2, 4, 5]) expect(booked[i]?.cancel()).toBe(true);
    const fresh = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 10, clock: new ManualClock(T0) });
    for (const r of booked.filter((_, i) => ![2, 4, 5].includes(i))) {
      (fresh.clock as ManualClock).set(r.at);
      fresh.consume('k');
    }
    expect(binding.snapshot('k')).toEqual((fresh.binding as MemoryBinding).snapshot('k'));
    expect(reserve(limiter, 'k').delayMs).toBe(600); // behind the last booking, three units sooner than 900
  });

  it(`keeps the latest ${CANCELLABLE_BOOKINGS} bookings of a key cancellable; an older one keeps its units spent`, () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    reserve(limiter, 'k');
    const booked = Array.from({ length: CANCELLABLE_BOOKINGS + 1 }, () => reserve(limiter, 'k'));
    expect(booked[0]?.cancel()).toBe(false);
    expect(booked[1]?.cancel()).toBe(true);
    expect(booked[CANCELLABLE_BOOKINGS]?.cancel()).toBe(true);
  });

  it('cancels on a key longer than 64 characters (kept as a digest) without resetting it', () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    const key = 'k'.repeat(100);
    reserve(limiter, key);
    const second = reserve(limiter, key);
    expect(second.cancel()).toBe(true);
    expect(reserve(limiter, key).delayMs).toBe(1000); // the first booking still holds
  });

  it('refuses a limiter on a store that cannot book, a bad key, cost or maxWaitMs', () => {
    const store = new AsyncMemoryStore();
    Object.defineProperty(store, 'reserveAll', { value: undefined }); // a remote store that cannot book
    const remote = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, store });
    expect(() => reserve(remote, 'k')).toThrowError(new TypeError("reserve: the limiter's store cannot book reservations (it has no reserveAll)"));
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 });
    expect(() => reserve(limiter, 5 as never)).toThrowError(new TypeError('reserve: key must be a string, got 5'));
    expect(() => reserve(limiter, 'k', 0)).toThrowError(new RangeError('reserve: cost must be a positive integer, got 0'));
    expect(() => reserve(limiter, 'k', 1, { maxWaitMs: -1 })).toThrowError(new RangeError('reserve: maxWaitMs must be a number >= 0, got -1'));
    expect(() => reserve(limiter, 'k', 1, { maxWaitMs: '5' as never })).toThrowError(new TypeError('reserve: maxWaitMs must be a number >= 0, got "5"'));
    const broken = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: { now: () => Number.NaN } });
    expect(() => reserve(broken, 'k')).toThrowError(new RangeError('reserve: clock.now() must return a finite number of epoch milliseconds, got NaN'));
  });

  it('wait rejects, never throws, for a refused call', async () => {
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 });
    const refused = wait(limiter, 'k', 0);
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toThrowError(new RangeError('reserve: cost must be a positive integer, got 0'));
  });

  it('refuses an option name it does not take, and a signal that is not one, recording nothing', async () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    // { maxWait } for maxWaitMs would otherwise be an unbounded wait.
    expect(() => reserve(limiter, 'k', 1, { maxWait: 10 } as never)).toThrowError(new TypeError('reserve: unknown option "maxWait"'));
    expect(() => reserve(limiter, 'k', 1, { signal: new AbortController().signal } as never)).toThrowError(new TypeError('reserve: unknown option "signal"'));
    expect(() => reserve(limiter, 'k', 1, null as never)).toThrowError(new TypeError('reserve: options must be an object, got null'));
    await expect(wait(limiter, 'k', 1, { maxWait: 10 } as never)).rejects.toThrowError(new TypeError('wait: unknown option "maxWait"'));
    await expect(wait(limiter, 'k', 1, { signal: 'stop' } as never)).rejects.toThrowError(new TypeError('wait: signal must be an AbortSignal, got "stop"'));
    expect(reserve(limiter, 'k').delayMs).toBe(0); // nothing was booked by the refusals
  });
});

interface Granted {
  readonly order: number;
  readonly at: number;
  readonly cost: number;
  readonly r: Reservation;
  cancelled: boolean;
}

/**
 * scheduleHolds: random reservations (some with a maxWaitMs), cancels of any earlier one and clock
 * moves, for every algorithm (fewer bookings than CANCELLABLE_BOOKINGS). Then: (never early) the live
 * granted requests, replayed in booking order at their instants on a fresh limiter, are all admitted;
 * (first come first served) their instants never decrease in booking order; (no trace) a failed
 * reservation and a refused cancel leave the key's state as it was; (units back) a cancel before the
 * instant succeeds, once, and leaves the key exactly as the fresh limiter's replay of the live
 * bookings leaves it: as if the cancelled one had never been made, with every booking behind it in place.
 */
function scheduleHolds(reserveFn: ReserveFn) {
  const op = (c: Case) =>
    fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant('reserve' as const),
          cost: costFor(c.limit, true),
          maxWaitMs: fc.option(fc.integer({ min: 0, max: 2 * c.scaleMs }), { nil: undefined }),
        }),
        weight: 5,
      },
      { arbitrary: fc.record({ kind: fc.constant('cancel' as const), which: fc.nat() }), weight: 3 },
      { arbitrary: fc.record({ kind: fc.constant('move' as const), dt: clockStep(c.scaleMs) }), weight: 2 },
    );
  const arb = anyCase.chain((c) => fc.record({ c: fc.constant(c), start: startInstant, ops: fc.array(op(c), { minLength: 1, maxLength: 50 }) }));
  return fc.property(arb, ({ c, start, ops }) => {
    const clock = new ManualClock(start);
    const limiter = c.create(clock);
    const binding = limiter.binding as MemoryBinding;
    const granted: Granted[] = [];
    /** replayed is the key's state on a fresh limiter that saw only the live bookings, at their instants. */
    const replayed = () => {
      const at = new ManualClock(start);
      const fresh = c.create(at);
      for (const g of granted) if (!g.cancelled) at.set(g.at), fresh.consume('k', g.cost);
      return (fresh.binding as MemoryBinding).snapshot('k');
    };
    for (const [i, o] of ops.entries()) {
      if (o.kind === 'move') clock.advance(o.dt);
      else if (o.kind === 'cancel') {
        const g = granted[o.which % Math.max(1, granted.length)];
        if (g === undefined) continue;
        const before = binding.snapshot('k');
        const due = !g.cancelled && clock.now() < g.at;
        if (g.r.cancel()) {
          if (!due) throw new Error(`step ${i}: cancelled booking ${g.order} again or after its instant`);
          g.cancelled = true;
          if (JSON.stringify(binding.snapshot('k')) !== JSON.stringify(replayed()))
            throw new Error(`step ${i}: the cancel of booking ${g.order} did not leave the key as if it had never been made`);
        } else if (due) throw new Error(`step ${i}: refused to cancel booking ${g.order}, still ahead`);
        else if (JSON.stringify(binding.snapshot('k')) !== JSON.stringify(before)) throw new Error(`step ${i}: a refused cancel changed the key`);
      } else {
        const before = binding.snapshot('k');
        const r = o.maxWaitMs === undefined ? reserveFn(limiter, 'k', o.cost) : reserveFn(limiter, 'k', o.cost, { maxWaitMs: o.maxWaitMs });
        if (r.ok) granted.push({ order: granted.length, at: r.at, cost: o.cost, r, cancelled: false });
        else if (JSON.stringify(binding.snapshot('k')) !== JSON.stringify(before)) throw new Error(`step ${i}: a failed reservation changed the key`);
        if (!r.ok && o.cost <= c.limit && o.maxWaitMs === undefined) throw new Error(`step ${i}: cost ${o.cost} of ${c.limit} refused`);
      }
    }
    const live = granted.filter((g) => !g.cancelled);
    for (let j = 1; j < live.length; j++) {
      if ((live[j] as Granted).at < (live[j - 1] as Granted).at)
        throw new Error(`booking ${j} goes at ${(live[j] as Granted).at}, before booking ${j - 1} at ${(live[j - 1] as Granted).at}`);
    }
    const replayClock = new ManualClock(start);
    const fresh = c.create(replayClock);
    for (const g of live) {
      replayClock.set(g.at);
      if (!fresh.consume('k', g.cost).allowed) throw new Error(`booking ${g.order} (cost ${g.cost}) at ${g.at} is early: a fresh limiter denies it there`);
    }
  });
}

describe('reserve properties', () => {
  it('never books early, serves first come first, cancels give back exactly their booking, for every algorithm', () => {
    fc.assert(scheduleHolds(real), { numRuns: 400 });
  });

  it('catches a reserver that lets a request jump the queue (mutant)', () => {
    expect(fc.check(scheduleHolds(queueJumpingReserve), { numRuns: 400 }).failed).toBe(true);
  });

  it('catches a cancel that gives back units later bookings relied on (mutant)', () => {
    expect(fc.check(scheduleHolds(eagerCancelReserve), { numRuns: 400 }).failed).toBe(true);
  });

  it('catches a cancel that succeeds only for the last booking of the key (mutant: the old rule)', () => {
    expect(fc.check(scheduleHolds(lastOnlyCancelReserve), { numRuns: 400 }).failed).toBe(true);
  });
});

describe('wait', () => {
  it('resolves at the booked instant, not one millisecond before', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    await expect(wait(limiter, 'k')).resolves.toMatchObject({ allowed: true });
    let done = false;
    const waiting = wait(limiter, 'k').then((d) => {
      done = true;
      return d;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    await expect(waiting).resolves.toMatchObject({ allowed: true, remaining: 0 });
  });

  it('never resolves before the clock reaches the instant, when the timer fires early (Node rounds its loop time)', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    reserve(limiter, 'k');
    let done = false;
    const waiting = wait(limiter, 'k').then((d) => ((done = true), d));
    clock.advance(999); // the clock moved, but 1 ms short of the instant when the 1,000 ms timer fires
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(false);
    clock.advance(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    await expect(waiting).resolves.toMatchObject({ allowed: true });
  });

  it('rejects at once when the cost never fits or the wait exceeds maxWaitMs, recording nothing', async () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock });
    await expect(wait(limiter, 'k', 3)).rejects.toMatchObject({ name: 'WaitError', reason: 'never' });
    reserve(limiter, 'k', 2);
    await expect(wait(limiter, 'k', 1, { maxWaitMs: 999 })).rejects.toMatchObject({ reason: 'too-long' });
    expect(reserve(limiter, 'k').delayMs).toBe(1000);
  });

  it('on abort stops waiting, rejects, and gives the units back', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    reserve(limiter, 'k');
    const controller = new AbortController();
    const waiting = wait(limiter, 'k', 1, { signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(WaitError);
    await expect(waiting).rejects.toMatchObject({ reason: 'aborted' });
    expect(reserve(limiter, 'k').delayMs).toBe(1000);
    await expect(wait(limiter, 'k', 1, { signal: AbortSignal.abort() })).rejects.toMatchObject({ reason: 'aborted' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
