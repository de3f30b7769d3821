/**
 * CompositeLimiter contracts: all or nothing (a denial by any member costs no member anything, the
 * per-second member's denial costs the per-minute member nothing and vice versa); the Decision is the
 * most restrictive (largest retryAfterMs, smallest remaining); nested composites flatten; members
 * must share one clock; and on a remote store the whole composite is one consumeAll round trip.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompositeLimiter,
  type Decision,
  FixedWindowLimiter,
  type Limiter,
  ManualClock,
  type Policy,
  type RateLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
} from '../src/index.js';
import { ConsumeFirstComposite } from './mutants/consume-first-composite.js';
import { anyCase, startInstant, history } from './support/arbitraries.js';
import { AsyncMemoryStore } from './support/async-store.js';
import type { Case } from './support/subjects.js';
import { runTable } from './support/table.js';

const T0 = 1_700_000_040_000; // a whole second and a whole minute

function perSecondAndPerMinute(clock: ManualClock) {
  const perSecond = new FixedWindowLimiter({ limit: 2, windowMs: 1000, clock, name: 'per-second' });
  const perMinute = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, clock, name: 'per-minute' });
  return { perSecond, perMinute, both: new CompositeLimiter([perSecond, perMinute]) };
}

describe('composite tables', () => {
  it('a denial by the per-second limiter costs the per-minute limiter nothing', () => {
    const clock = new ManualClock(T0);
    const { perSecond, perMinute, both } = perSecondAndPerMinute(clock);
    runTable(both, clock, T0, [
      { at: 0, allowed: true, remaining: 1 },
      { at: 0, allowed: true, remaining: 0 },
      { at: 0, allowed: false, remaining: 0, retryAfterMs: 1000 },
      { at: 10, allowed: false, retryAfterMs: 990 },
      { at: 20, cost: 2, allowed: false, retryAfterMs: 980 },
    ]);
    expect(perMinute.peek('k')).toMatchObject({ allowed: true, remaining: 2 });
    expect(perSecond.peek('k')).toMatchObject({ allowed: false, retryAfterMs: 980 });
  });

  it('a denial by the per-minute limiter costs the per-second limiter nothing', () => {
    const clock = new ManualClock(T0);
    const { perSecond, perMinute, both } = perSecondAndPerMinute(clock);
    runTable(both, clock, T0, [
      { at: 0, cost: 2, allowed: true, remaining: 0 },
      { at: 1000, cost: 2, allowed: true, remaining: 0 },
      { at: 2000, allowed: true, remaining: 0 },
      { at: 3000, allowed: false, remaining: 0, retryAfterMs: 57_000, resetAfterMs: 57_000 },
      { at: 3000, cost: 2, allowed: false, remaining: 0, retryAfterMs: 57_000 },
    ]);
    expect(perSecond.peek('k', 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(perMinute.peek('k')).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('reports the most restrictive decision: the longest wait, the fewest units left, every part in order', () => {
    const clock = new ManualClock(T0);
    const bucket = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, clock, name: 'bucket' });
    const window = new SlidingWindowLimiter({ limit: 3, windowMs: 1000, clock, name: 'window' });
    const both = new CompositeLimiter([bucket, window]);
    const allowed = both.consume('k', 2);
    expect(allowed).toMatchObject({ allowed: true, remaining: 1, retryAfterMs: 0, limit: 3 });
    expect(allowed.parts?.map((p) => p.policy.name)).toEqual(['bucket', 'window']);
    const denied = both.consume('k', 2); // the window denies (1 left), the bucket would allow (8 left)
    expect(denied).toMatchObject({ allowed: false, remaining: 1, retryAfterMs: 1500, limit: 3 });
    expect(denied.policy.name).toBe('window');
    expect(denied.parts?.map((p) => [p.allowed, p.remaining])).toEqual([
      [true, 8],
      [false, 1],
    ]);
    expect(bucket.peek('k', 8)).toMatchObject({ allowed: true, remaining: 0 });
  });
});

/** Members of a composite under test beside independent twins that see only admitted requests. */
function membersAndTwins(cases: readonly Case[]) {
  const clock = new ManualClock();
  const members = cases.map((c) => c.create(clock));
  const twinClock = new ManualClock();
  return { clock, members, twinClock, twins: cases.map((c) => c.create(twinClock)) };
}

const strip = (d: Decision) => ({ allowed: d.allowed, remaining: d.remaining, retryAfterMs: d.retryAfterMs, resetAfterMs: d.resetAfterMs });
const figures = (d: Decision) => `${d.allowed}/${d.remaining}/${d.retryAfterMs}/${d.resetAfterMs}`;

/**
 * allOrNothing: step by step, the composite admits exactly when every twin would (then the twins take
 * the request), its decision is the most restrictive over the twins' answers, and afterwards every
 * member reports exactly what its twin reports: no member was charged for a denied request.
 */
function allOrNothing(build: (members: readonly Limiter<Policy, 'sync'>[]) => RateLimiter<'sync'>) {
  const arb = fc.array(anyCase, { minLength: 2, maxLength: 3 }).chain((cases) =>
    fc.record({
      cases: fc.constant(cases),
      start: startInstant,
      moves: history({ limit: Math.max(...cases.map((c) => c.limit)), scaleMs: Math.max(...cases.map((c) => c.scaleMs)) }, { keys: 2, maxLength: 40 }),
    }),
  );
  return fc.property(arb, ({ cases, start, moves }) => {
    const { clock, members, twinClock, twins } = membersAndTwins(cases);
    const composite = build(members);
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      clock.set(now);
      twinClock.set(now);
      const answers = twins.map((t) => t.peek(move.key, move.cost));
      const all = answers.every((a) => a.allowed);
      const d = composite.consume(move.key, move.cost);
      const left = answers.map((a) => (a.allowed && !all ? a.remaining + move.cost : a.remaining));
      const want = { allowed: all, retryAfterMs: Math.max(...answers.map((a) => a.retryAfterMs)), remaining: Math.min(...left) };
      const got = { allowed: d.allowed, retryAfterMs: d.retryAfterMs, remaining: d.remaining };
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`step ${i}: want ${JSON.stringify(want)} got ${JSON.stringify(got)}`);
      if (all) for (const t of twins) t.consume(move.key, move.cost);
      for (const [m, member] of members.entries()) {
        for (const key of ['k0', 'k1']) {
          const [mine, twin] = [figures(member.peek(key)), figures((twins[m] as Limiter<Policy, 'sync'>).peek(key))];
          if (mine !== twin) throw new Error(`step ${i}: member ${m} reports ${mine} for ${key}, its twin ${twin}`);
        }
      }
    }
  });
}

describe('composite properties', () => {
  it('admits only when every member would, charges no member for a denial, and reports the most restrictive decision', () => {
    fc.assert(
      allOrNothing((members) => new CompositeLimiter(members)),
      { numRuns: 200 },
    );
  });

  it('catches a composite that consumes from each member before checking the others (mutant)', () => {
    expect(
      fc.check(
        allOrNothing((members) => new ConsumeFirstComposite(members)),
        { numRuns: 200 },
      ).failed,
    ).toBe(true);
  });

  it('decides a nested composite exactly as the flat one over the same members', () => {
    fc.assert(
      fc.property(
        fc.array(anyCase, { minLength: 3, maxLength: 4 }),
        fc.array(fc.record({ dt: fc.nat(3000), cost: fc.integer({ min: 1, max: 4 }) }), { maxLength: 40 }),
        (cases, moves) => {
          const clock = new ManualClock(T0);
          const flatClock = new ManualClock(T0);
          const members = cases.map((c) => c.create(clock));
          const nested = new CompositeLimiter([new CompositeLimiter(members.slice(0, 2)), new CompositeLimiter(members.slice(2))]);
          const flat = new CompositeLimiter(cases.map((c) => c.create(flatClock)));
          expect(nested.members).toEqual(members);
          expect(nested.policies).toEqual(members.map((m) => m.policy));
          for (const move of moves) {
            clock.advance(move.dt);
            flatClock.advance(move.dt);
            expect(strip(nested.consume('k', move.cost))).toEqual(strip(flat.consume('k', move.cost)));
          }
        },
      ),
    );
  });

  it('reset returns every member to its empty state', () => {
    const clock = new ManualClock(T0);
    const { perSecond, perMinute, both } = perSecondAndPerMinute(clock);
    both.consume('k', 2);
    both.reset('k');
    expect(perSecond.peek('k', 2).allowed).toBe(true);
    expect(perMinute.peek('k')).toMatchObject({ remaining: 4 });
  });
});

describe('composite construction', () => {
  const clock = new ManualClock(T0);
  const a = new FixedWindowLimiter({ limit: 2, windowMs: 1000, clock });
  const b = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock });

  it('rejects an empty list, a non-array and a non-limiter member with a TypeError naming the class', () => {
    expect(() => new CompositeLimiter([])).toThrow(new TypeError('CompositeLimiter: limiters must be a non-empty array of limiters, got an array'));
    expect(() => new CompositeLimiter(undefined as never)).toThrow(/^CompositeLimiter: limiters must be a non-empty array of limiters, got undefined$/);
    expect(() => new CompositeLimiter([a, { consume() {} } as never])).toThrow(new TypeError('CompositeLimiter: limiters[1] must be a ratekeeper limiter, got an object'));
  });

  it('rejects a limiter that appears twice, directly or through a nested composite', () => {
    expect(() => new CompositeLimiter([a, a])).toThrow(new TypeError('CompositeLimiter: a limiter appears twice among the members'));
    expect(() => new CompositeLimiter([new CompositeLimiter([a, b]), a])).toThrow(TypeError);
  });

  it('rejects members that read different clocks', () => {
    const other = new FixedWindowLimiter({ limit: 2, windowMs: 1000, clock: new ManualClock(T0) });
    expect(() => new CompositeLimiter([a, other])).toThrow(new TypeError('CompositeLimiter: every member must share one clock; member 1 has another'));
  });

  it('rejects members spread over a remote store and the memory store', () => {
    const remote = new FixedWindowLimiter({ limit: 2, windowMs: 1000, clock, store: new AsyncMemoryStore() });
    expect(() => new CompositeLimiter([remote as never, a])).toThrow(/^CompositeLimiter: members on a remote store must all share one store/);
  });
});

describe('composite on a remote store', () => {
  it('answers with promises, in one consumeAll round trip per call, with the same decisions as in memory', async () => {
    const store = new AsyncMemoryStore();
    const clock = new ManualClock(T0);
    const remote = new CompositeLimiter([
      new FixedWindowLimiter({ limit: 2, windowMs: 1000, clock, store }),
      new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock, store }),
    ]);
    const local = perSecondAndPerMinute(clock).both;
    expect(remote.mode).toBe('async');
    const first = remote.consume('k');
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ allowed: true, remaining: 1 });
    expect(await remote.allow('k')).toBe(true);
    expect(await remote.consume('k')).toMatchObject({ allowed: false, retryAfterMs: 1000 });
    expect(store.roundTrips).toBe(3);
    expect(local.consume('k').allowed).toBe(true);
  });
});

describe('a member that would admit inside a denied composite', () => {
  it('reports what it holds as it stands: its units and its time to full, not as if the request were taken', () => {
    const clock = new ManualClock(1_000_000);
    const bucket = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'burst', clock });
    const window = new SlidingWindowLimiter({ limit: 1, windowMs: 60_000, name: 'minute', clock });
    const composite = new CompositeLimiter([bucket, window]);
    expect(composite.consume('k').allowed).toBe(true);
    clock.advance(500); // the bucket holds 1.5 tokens and is full again in 500 ms; the window is spent
    const denied = composite.consume('k');
    expect(denied.allowed).toBe(false);
    expect(denied.parts?.[0]).toMatchObject({ allowed: true, remaining: 1, retryAfterMs: 0, resetAfterMs: 500 });
    expect(bucket.peek('k', 2)).toMatchObject({ allowed: false, retryAfterMs: 500 }); // the same 500 ms, from the bucket itself
  });
});
