/**
 * Random limiter configurations and request histories for the differential test. The same history is
 * replayed on the memory store and on Redis in client time, step by step.
 *
 * One constraint keeps the comparison honest: in client time `now` is virtual, but Redis expires keys
 * by its own real clock. A key whose TTL ran out in real time while the virtual clock stood still would
 * read as empty on Redis and not in memory. So every TTL the generated policies can produce is at least
 * MARGIN_MS, far longer than a history takes to replay: refill intervals and windows are at least that
 * long, and fixed-window instants never fall in the last MARGIN_MS of a window (those are moved to the
 * next window's start). Within that, rates are fractional and awkward, clocks jump and step back (by
 * whole milliseconds: a ManualClock holds integer epoch milliseconds).
 */
import { type Clock, FixedWindowLimiter, type Limiter, type Mode, type Policy, SlidingLogLimiter, SlidingWindowLimiter, type Store, TokenBucketLimiter } from '@ratekeeper/core';
import fc from 'fast-check';

export const MARGIN_MS = 1000;

export type Spec =
  | { readonly algorithm: 'token-bucket'; readonly capacity: number; readonly refillPerSecond: number }
  | { readonly algorithm: 'sliding-window' | 'fixed-window' | 'sliding-log'; readonly limit: number; readonly windowMs: number };

/** Rates of at most 1 per second keep every token-bucket TTL at MARGIN_MS or more. */
const refill = fc.oneof(fc.constantFrom(1, 0.5, 1 / 3, 0.3, 0.07, 0.013), fc.double({ min: 0.001, max: 1, noNaN: true }));
const windowMs = fc.oneof(fc.constantFrom(1000, 1001, 3000, 60_000), fc.integer({ min: MARGIN_MS + 1, max: 20_000 }));

export const specs = {
  'token-bucket': fc.record({ algorithm: fc.constant('token-bucket' as const), capacity: fc.integer({ min: 1, max: 12 }), refillPerSecond: refill }),
  'sliding-window': fc.record({ algorithm: fc.constant('sliding-window' as const), limit: fc.integer({ min: 1, max: 12 }), windowMs }),
  'fixed-window': fc.record({
    algorithm: fc.constant('fixed-window' as const),
    limit: fc.integer({ min: 1, max: 12 }),
    windowMs: windowMs.map((w) => w + MARGIN_MS),
  }),
  'sliding-log': fc.record({ algorithm: fc.constant('sliding-log' as const), limit: fc.integer({ min: 1, max: 12 }), windowMs }),
};

export function limitOf(spec: Spec): number {
  return spec.algorithm === 'token-bucket' ? spec.capacity : spec.limit;
}

function scaleOf(spec: Spec): number {
  return spec.algorithm === 'token-bucket' ? 1000 / spec.refillPerSecond : spec.windowMs;
}

export function makeLimiter<M extends Mode>(spec: Spec, store: Store<M>, clock: Clock, name?: string): Limiter<Policy, M> {
  const common = name === undefined ? { store, clock } : { store, clock, name };
  if (spec.algorithm === 'token-bucket') return new TokenBucketLimiter<M>({ ...common, capacity: spec.capacity, refillPerSecond: spec.refillPerSecond });
  if (spec.algorithm === 'sliding-window') return new SlidingWindowLimiter<M>({ ...common, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'sliding-log') return new SlidingLogLimiter<M>({ ...common, limit: spec.limit, windowMs: spec.windowMs });
  return new FixedWindowLimiter<M>({ ...common, limit: spec.limit, windowMs: spec.windowMs });
}

export interface Step {
  readonly op: 'consume' | 'peek' | 'allow' | 'reset';
  readonly dt: number;
  readonly cost: number;
  readonly key: number;
}

function clockStep(scaleMs: number): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: fc.constant(0), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: Math.ceil(scaleMs / 8) }), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: Math.ceil(2 * scaleMs) }), weight: 2 },
    { arbitrary: fc.constant(Math.ceil(scaleMs)), weight: 1 }, // exactly one window or refill later: the boundary
    { arbitrary: fc.integer({ min: -Math.ceil(scaleMs), max: -1 }), weight: 1 },
  );
}

export function steps(members: readonly Spec[]): fc.Arbitrary<Step[]> {
  const limit = Math.max(...members.map(limitOf));
  const step = fc.record({
    op: fc.constantFrom<Step['op']>('consume', 'consume', 'consume', 'consume', 'peek', 'allow', 'reset'),
    dt: clockStep(Math.min(...members.map(scaleOf))),
    cost: fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: limit + 2 }), weight: 1 }),
    key: fc.integer({ min: 0, max: 2 }),
  });
  return fc.array(step, { minLength: 1, maxLength: 40 });
}

/** An epoch instant between 2020 and 2030. */
export const startInstant = fc.integer({ min: 1_577_836_800_000, max: 1_893_456_000_000 });

/** nextInstant moves `now` by `dt`, out of the last MARGIN_MS of any fixed window among `members`. */
export function nextInstant(now: number, dt: number, members: readonly Spec[]): number {
  let t = now + dt;
  for (const spec of members) {
    if (spec.algorithm !== 'fixed-window') continue;
    const start = Math.floor(t / spec.windowMs) * spec.windowMs;
    if (t - start > spec.windowMs - MARGIN_MS) t = start + spec.windowMs;
  }
  return t;
}
