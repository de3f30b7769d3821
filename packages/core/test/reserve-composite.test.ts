/**
 * reserve and wait on a CompositeLimiter (memory store): the instant is the first at which every member
 * admits (and no earlier than the latest booking on any member), all members are booked or none, and
 * cancel restores every member exactly. A random property over pairs of limiters of every algorithm,
 * and a cancel that restores only one member (mutant) it must catch; another cancels any booking still
 * ahead and requires every member to be left as if it had never been booked, which the old rule (only
 * the last booking could be cancelled, mutant) fails.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompositeLimiter, FixedWindowLimiter, ManualClock, type RateLimiter, type Reservation, TokenBucketLimiter, reserve } from '../src/index.js';
import { type MemoryBinding } from '../src/store/index.js';
import { lastOnlyCancelReserve } from './mutants/reserve-defects.js';
import { anyCase, clockStep, costFor, startInstant } from './support/arbitraries.js';

const T0 = 1_700_000_000_000;

describe('reserve on a composite', () => {
  it('books at the first instant every member admits: a bucket of 2 at 1/s and 3 per 10 s', () => {
    const clock = new ManualClock(T0);
    const both = new CompositeLimiter([new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock }), new FixedWindowLimiter({ limit: 3, windowMs: 10_000, clock })]);
    // T0 starts a window. The bucket admits 2 now and 1 more at +1 s (3: the window is full); the next
    // window opens at +10 s with the bucket full again: 2 then, the third of the window at +11 s.
    const delays = [1, 1, 1, 1, 1, 1].map(() => reserve(both, 'k').delayMs);
    expect(delays).toEqual([0, 0, 1000, 10_000, 10_000, 11_000]);
    const r = reserve(both, 'k', 1);
    expect(r.delayMs).toBe(20_000);
    expect(r.decision.parts).toHaveLength(2);
    expect(r.decision.allowed).toBe(true);
  });

  it('refuses all or nothing: a wait too long for one member books neither', () => {
    const clock = new ManualClock(T0);
    const bucket = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock });
    const window = new FixedWindowLimiter({ limit: 1, windowMs: 60_000, clock });
    const both = new CompositeLimiter([bucket, window]);
    reserve(both, 'k');
    const before = [bucket, window].map((l) => (l.binding as MemoryBinding).snapshot('k'));
    const r = reserve(both, 'k', 1, { maxWaitMs: 1000 });
    expect(r).toMatchObject({ ok: false, delayMs: Infinity, decision: { allowed: false } });
    expect(r.decision.retryAfterMs).toBeGreaterThan(1000);
    expect([bucket, window].map((l) => (l.binding as MemoryBinding).snapshot('k'))).toEqual(before);
    expect(reserve(both, 'k', 6)).toMatchObject({ ok: false, decision: { retryAfterMs: Infinity } }); // above the bucket's capacity
  });

  it('cancel restores every member', () => {
    const clock = new ManualClock(T0);
    const bucket = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    const window = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, clock });
    const both = new CompositeLimiter([bucket, window]);
    reserve(both, 'k');
    const before = [bucket, window].map((l) => (l.binding as MemoryBinding).snapshot('k'));
    const r = reserve(both, 'k');
    expect(r.delayMs).toBe(1000);
    expect(r.cancel()).toBe(true);
    expect([bucket, window].map((l) => (l.binding as MemoryBinding).snapshot('k'))).toEqual(before);
  });

  it('keeps one queue with the members: a single-limiter reservation waits behind the composite booking', () => {
    const clock = new ManualClock(T0);
    const bucket = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    const window = new FixedWindowLimiter({ limit: 1, windowMs: 10_000, clock });
    const both = new CompositeLimiter([bucket, window]);
    reserve(both, 'k');
    const booked = reserve(both, 'k');
    expect(reserve(window, 'k').at).toBeGreaterThanOrEqual(booked.at);
  });
});

type CancelFn = (r: Reservation, members: readonly MemoryBinding[], before: readonly (number[] | undefined)[]) => boolean;
const realCancel: CancelFn = (r) => r.cancel();
/** MUTANT: a composite cancel that puts back the first member only. */
const firstMemberCancel: CancelFn = (r, members, before) => {
  if (r.delayMs === 0) return false;
  (members[0] as MemoryBinding).restore('k', before[0], 0);
  return true;
};

function compositeHolds(cancel: CancelFn) {
  const arb = fc.tuple(anyCase, anyCase).chain(([a, b]) =>
    fc.record({
      a: fc.constant(a),
      b: fc.constant(b),
      start: startInstant,
      ops: fc.array(
        fc.oneof(
          fc.record({ kind: fc.constant('reserve' as const), cost: costFor(Math.min(a.limit, b.limit), true) }),
          fc.record({ kind: fc.constant('move' as const), dt: clockStep(Math.min(a.scaleMs, b.scaleMs)) }),
          fc.record({ kind: fc.constant('cancel' as const) }),
        ),
        { minLength: 1, maxLength: 30 },
      ),
    }),
  );
  return fc.property(arb, ({ a, b, start, ops }) => {
    const clock = new ManualClock(start);
    const members = [a.create(clock), b.create(clock)];
    const both = new CompositeLimiter(members);
    const bindings = members.map((m) => m.binding as MemoryBinding);
    const granted: { at: number; cost: number }[] = [];
    let last: { r: Reservation; before: (number[] | undefined)[] } | undefined;
    for (const [i, o] of ops.entries()) {
      if (o.kind === 'move') clock.advance(o.dt);
      else if (o.kind === 'cancel') {
        if (last === undefined) continue;
        const { r, before } = last;
        last = undefined;
        if (!cancel(r, bindings, before)) continue;
        granted.pop();
        const after = bindings.map((x) => x.snapshot('k'));
        if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error(`step ${i}: the cancel left a member changed`);
      } else {
        const before = bindings.map((x) => x.snapshot('k'));
        const r = reserve(both, 'k', o.cost);
        const fits = o.cost <= Math.min(a.limit, b.limit);
        if (r.ok !== fits) throw new Error(`step ${i}: cost ${o.cost} ${fits ? 'refused' : 'booked'}`);
        if (!r.ok) {
          if (JSON.stringify(bindings.map((x) => x.snapshot('k'))) !== JSON.stringify(before)) throw new Error(`step ${i}: a refusal changed a member`);
          continue;
        }
        const previous = granted[granted.length - 1];
        if (previous !== undefined && r.at < previous.at) throw new Error(`step ${i}: booked at ${r.at}, before the previous booking at ${previous.at}`);
        granted.push({ at: r.at, cost: o.cost });
        last = { r, before };
      }
    }
    const replayClock = new ManualClock(start);
    const fresh = new CompositeLimiter([a.create(replayClock), b.create(replayClock)]);
    for (const [j, g] of granted.entries()) {
      replayClock.set(g.at);
      if (!fresh.consume('k', g.cost).allowed) throw new Error(`booking ${j} (cost ${g.cost}) at ${g.at} is early: a fresh composite denies it`);
    }
  });
}

describe('reserve on a composite, properties', () => {
  it('never books early, serves first come first, refuses all or nothing and cancels every member, for every pair of algorithms', () => {
    fc.assert(compositeHolds(realCancel), { numRuns: 300 });
  });

  it('catches a cancel that restores one member only (mutant)', () => {
    expect(fc.check(compositeHolds(firstMemberCancel), { numRuns: 300 }).failed).toBe(true);
  });
});

type Book = (limiter: RateLimiter<'sync'>, key: string, cost: number) => Reservation;
const realBook: Book = (limiter, key, cost) => reserve(limiter, key, cost);

/**
 * cancelsExact: bookings on a composite, clock moves and cancels of any booking. A cancel before the
 * instant succeeds once and leaves every member exactly as a fresh composite that saw only the live
 * bookings, at their instants, leaves it: the bookings behind keep their instants, nothing is given
 * back that they relied on, and everything else the cancelled booking took is.
 */
function cancelsExact(book: Book) {
  const arb = fc.tuple(anyCase, anyCase).chain(([a, b]) =>
    fc.record({
      a: fc.constant(a),
      b: fc.constant(b),
      start: startInstant,
      ops: fc.array(
        fc.oneof(
          { arbitrary: fc.record({ kind: fc.constant('reserve' as const), cost: costFor(Math.min(a.limit, b.limit), false) }), weight: 4 },
          { arbitrary: fc.record({ kind: fc.constant('move' as const), dt: clockStep(Math.min(a.scaleMs, b.scaleMs)) }), weight: 1 },
          { arbitrary: fc.record({ kind: fc.constant('cancel' as const), which: fc.nat() }), weight: 2 },
        ),
        { minLength: 1, maxLength: 40 },
      ),
    }),
  );
  return fc.property(arb, ({ a, b, start, ops }) => {
    const clock = new ManualClock(start);
    const both = new CompositeLimiter([a.create(clock), b.create(clock)]);
    const bindings = both.members.map((m) => (m as unknown as { binding: MemoryBinding }).binding);
    const granted: { at: number; cost: number; r: Reservation; live: boolean }[] = [];
    const replayed = () => {
      const at = new ManualClock(start);
      const fresh = new CompositeLimiter([a.create(at), b.create(at)]);
      for (const g of granted.filter((x) => x.live)) {
        at.set(g.at);
        fresh.consume('k', g.cost);
      }
      return JSON.stringify(fresh.members.map((m) => (m as unknown as { binding: MemoryBinding }).binding.snapshot('k')));
    };
    for (const [i, o] of ops.entries()) {
      if (o.kind === 'move') clock.advance(o.dt);
      else if (o.kind === 'reserve') {
        const r = book(both, 'k', o.cost);
        if (r.ok) granted.push({ at: r.at, cost: o.cost, r, live: true });
      } else {
        const g = granted[o.which % Math.max(1, granted.length)];
        if (g === undefined) continue;
        const due = g.live && clock.now() < g.at;
        const done = g.r.cancel();
        if (done !== due) throw new Error(`step ${i}: cancel answered ${done} for a booking ${due ? 'still ahead' : 'gone or cancelled'}`);
        if (!done) continue;
        g.live = false;
        if (JSON.stringify(bindings.map((x) => x.snapshot('k'))) !== replayed()) throw new Error(`step ${i}: the members are not as if the booking had never been made`);
      }
    }
  });
}

describe('reserve on a composite, cancels anywhere in the queue', () => {
  it('a cancel before the instant leaves every member as if the booking had never been made, for every pair of algorithms', () => {
    fc.assert(cancelsExact(realBook), { numRuns: 300 });
  });

  it('catches the old rule, a cancel that succeeds only for the last booking (mutant)', () => {
    expect(fc.check(cancelsExact(lastOnlyCancelReserve as unknown as Book), { numRuns: 300 }).failed).toBe(true);
  });
});
