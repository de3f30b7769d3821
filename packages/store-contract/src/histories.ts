/**
 * Random limiter configurations and request histories for the stores' differential tests: the same
 * history is replayed on the memory store and on the store under test with one ManualClock, step by
 * step. Rates are fractional and awkward, clocks jump and step back (whole milliseconds); the clock
 * never goes back `graceMs` or more behind the latest instant of the history (Instants), since a state
 * the store deleted as expired reads as empty to a clock that far back (a documented difference from
 * memory, which keeps empty states until its table is full).
 */
import { type Clock, FixedWindowLimiter, type Limiter, type Mode, type Policy, SlidingLogLimiter, SlidingWindowLimiter, type Store, TokenBucketLimiter } from '@ratekeeper/core';
import fc from 'fast-check';

export type Spec =
  | { readonly algorithm: 'token-bucket'; readonly capacity: number; readonly refillPerSecond: number }
  | { readonly algorithm: 'sliding-window' | 'fixed-window' | 'sliding-log'; readonly limit: number; readonly windowMs: number };

const refill = fc.oneof(fc.constantFrom(1, 0.5, 1 / 3, 0.3, 7, 0.013, 1000), fc.double({ min: 0.001, max: 50, noNaN: true }));
const windowMs = fc.oneof(fc.constantFrom(1, 1000, 1001, 3000, 60_000), fc.integer({ min: 2, max: 20_000 }));
const limit = fc.integer({ min: 1, max: 12 });

export const specs = {
  'token-bucket': fc.record({ algorithm: fc.constant('token-bucket' as const), capacity: limit, refillPerSecond: refill }),
  'sliding-window': fc.record({ algorithm: fc.constant('sliding-window' as const), limit, windowMs }),
  'fixed-window': fc.record({ algorithm: fc.constant('fixed-window' as const), limit, windowMs }),
  'sliding-log': fc.record({ algorithm: fc.constant('sliding-log' as const), limit, windowMs }),
};

export const ALGORITHMS = ['token-bucket', 'sliding-window', 'fixed-window', 'sliding-log'] as const;

export const composites: fc.Arbitrary<Spec[]> = fc
  .subarray([specs['token-bucket'], specs['sliding-window'], specs['fixed-window'], specs['sliding-log']], { minLength: 2 })
  .chain((arbs) => fc.tuple(...arbs))
  .map((members) => members as Spec[]);

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
  readonly op: 'consume' | 'peek' | 'allow' | 'reset' | 'refund';
  readonly dt: number;
  readonly cost: number;
  readonly key: number;
}

/** BookingStep is a step of a reservation history (bookingSteps): a Step, or a reserve or a cancel. */
export interface BookingStep extends Omit<Step, 'op'> {
  readonly op: Step['op'] | 'reserve' | 'cancel';
  /** A reserve's maxWaitMs (undefined: no bound). */
  readonly maxWaitMs?: number | undefined;
  /** A cancel's reservation: this index modulo the reservations made so far. */
  readonly pick?: number;
}

function clockStep(scaleMs: number): fc.Arbitrary<number> {
  const scale = Math.ceil(Math.min(scaleMs, 1e7));
  return fc.oneof(
    { arbitrary: fc.constant(0), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: Math.ceil(scale / 8) }), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: 2 * scale }), weight: 2 },
    { arbitrary: fc.constant(scale), weight: 1 }, // exactly one window or refill later: the boundary
    { arbitrary: fc.integer({ min: -scale, max: -1 }), weight: 1 },
  );
}

export function steps(members: readonly Spec[], keys = 3): fc.Arbitrary<Step[]> {
  const most = Math.max(...members.map(limitOf));
  const step = fc.record({
    op: fc.constantFrom<Step['op']>('consume', 'consume', 'consume', 'consume', 'peek', 'allow', 'reset', 'refund'),
    dt: clockStep(Math.min(...members.map(scaleOf))),
    cost: fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: most + 2 }), weight: 1 }),
    key: fc.integer({ min: 0, max: keys - 1 }),
  });
  return fc.array(step, { minLength: 1, maxLength: 40 });
}

/**
 * banHistories: a limiter of `algorithm` with a small limit (1 to 3, so its denials, and so bans, come
 * often), banMs on the scale of its window or refill, and steps on the smaller of the two scales: bans
 * start, are denied, lifted by refunds, end, and are seen again by a clock stepping back.
 */
export function banHistories(algorithm: (typeof ALGORITHMS)[number]): fc.Arbitrary<{ spec: Spec; banMs: number; history: Step[] }> {
  const small = fc.integer({ min: 1, max: 3 });
  return fc
    .tuple(specs[algorithm], small)
    .map(([spec, n]): Spec => (spec.algorithm === 'token-bucket' ? { ...spec, capacity: n } : { ...spec, limit: n }))
    .chain((spec) => {
      const scale = Math.ceil(Math.min(scaleOf(spec), 1e7));
      return fc.tuple(fc.constant(spec), fc.integer({ min: 1, max: 3 * scale }));
    })
    .chain(([spec, banMs]) => {
      const step = fc.record({
        op: fc.constantFrom<Step['op']>('consume', 'consume', 'consume', 'consume', 'peek', 'allow', 'refund', 'refund', 'reset'),
        dt: clockStep(Math.min(scaleOf(spec), banMs)),
        cost: fc.oneof({ arbitrary: fc.constant(1), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: limitOf(spec) + 1 }), weight: 1 }),
        key: fc.integer({ min: 0, max: 1 }),
      });
      return fc.record({ spec: fc.constant(spec), banMs: fc.constant(banMs), history: fc.array(step, { minLength: 10, maxLength: 40, size: 'max' }) });
    });
}

/**
 * bookingSteps: histories where reservations and their cancels mix with consumes, peeks, resets and
 * refunds on a few keys (a cancel picks any reservation made before, granted or not, cancelled or not).
 */
export function bookingSteps(members: readonly Spec[], keys = 2): fc.Arbitrary<BookingStep[]> {
  const most = Math.max(...members.map(limitOf));
  const scale = Math.min(...members.map(scaleOf));
  const step = fc.record({
    op: fc.constantFrom<BookingStep['op']>('reserve', 'reserve', 'reserve', 'reserve', 'cancel', 'cancel', 'consume', 'peek', 'reset', 'refund'),
    dt: clockStep(scale),
    cost: fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: most + 1 }), weight: 1 }),
    key: fc.integer({ min: 0, max: keys - 1 }),
    maxWaitMs: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, fc.constant(0), fc.integer({ min: 1, max: Math.ceil(Math.min(4 * scale, 1e8)) })),
    pick: fc.nat(),
  });
  return fc.array(step, { minLength: 1, maxLength: 40 });
}

/** An epoch instant between 2020 and 2030. */
export const startInstant = fc.integer({ min: 1_577_836_800_000, max: 1_893_456_000_000 });

/**
 * Instants: `dt` after `now`, never `graceMs` or more before the latest instant so far (a store that
 * deletes expired state reads it as empty to a clock that far back: pass its EXPIRED_GRACE_MS).
 */
export class Instants {
  readonly #graceMs: number;
  #now: number;
  #latest: number;
  constructor(start: number, graceMs: number) {
    this.#graceMs = graceMs;
    this.#now = this.#latest = start;
  }
  next(dt: number): number {
    this.#now = Math.max(this.#now + dt, this.#latest - (this.#graceMs - 1));
    this.#latest = Math.max(this.#latest, this.#now);
    return this.#now;
  }
}
