/**
 * fast-check generators shared by the property tests: limiter configurations (fractional refill rates
 * and odd window lengths included), start instants anywhere in this century, and request histories
 * whose clock steps are drawn on the configuration's own time scale so that bursts, partial refills
 * and long idles all occur.
 */
import fc from 'fast-check';
import { type Case, type Target, composite, firstRequestWindowCase, fixedWindowCase, single, slidingLogCase, slidingWindowCase, tokenBucketCase } from './subjects.js';

/** Fractional and awkward rates on purpose (1/3 and 0.769… have no exact binary interval), and the extremes. */
const refillRate = fc.oneof(fc.constantFrom(0.5, 1 / 3, 0.7692307692307693, 2, 7, 16, 1000, 1e6, 1e-3), fc.double({ min: 0.05, max: 500, noNaN: true }));

export const tokenBucketCases = fc.record({ capacity: fc.integer({ min: 1, max: 12 }), refill: refillRate }).map(({ capacity, refill }) => tokenBucketCase(capacity, refill));

const windowMs = fc.oneof(fc.constantFrom(1000, 60_000, 7, 1), fc.integer({ min: 2, max: 5000 }));
const windowShape = fc.record({ limit: fc.integer({ min: 1, max: 10 }), windowMs });

export const slidingWindowCases = windowShape.map(({ limit, windowMs: w }) => slidingWindowCase(limit, w));
export const fixedWindowCases = windowShape.map(({ limit, windowMs: w }) => fixedWindowCase(limit, w));
export const firstRequestWindowCases = windowShape.map(({ limit, windowMs: w }) => firstRequestWindowCase(limit, w));
export const slidingLogCases = windowShape.map(({ limit, windowMs: w }) => slidingLogCase(limit, w));
export const anyCase = fc.oneof(tokenBucketCases, slidingWindowCases, fixedWindowCases, firstRequestWindowCases, slidingLogCases);

/** An epoch instant between 2020 and 2030. */
export const startInstant = fc.integer({ min: 1_577_836_800_000, max: 1_893_456_000_000 });

export interface Move {
  /** Milliseconds the clock moves forward before the request (0: same instant). */
  readonly dt: number;
  readonly cost: number;
  readonly key: string;
}

export interface HistoryOptions {
  readonly keys?: number;
  readonly maxLength?: number;
  /** Allow costs above the limit (never satisfiable requests). */
  readonly oversize?: boolean;
}

/** clockStep draws forward steps: often none (a burst), often small, sometimes several scales long. */
export function clockStep(scaleMs: number): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: fc.constant(0), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: Math.max(1, Math.ceil(scaleMs / 8)) }), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: Math.max(1, 2 * scaleMs) }), weight: 2 },
    { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 1 },
  );
}

export function costFor(limit: number, oversize: boolean): fc.Arbitrary<number> {
  return fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: oversize ? limit + 2 : limit }), weight: 1 });
}

/** Any target: one limiter of each algorithm, or a composite of two or three of them. */
export const anyTarget: fc.Arbitrary<Target> = fc.oneof(
  { arbitrary: anyCase.map((c) => single(c)), weight: 3 },
  { arbitrary: fc.array(anyCase, { minLength: 2, maxLength: 3 }).map(composite), weight: 1 },
);

/** targetWithHistory draws a target, a start instant and a history for it. */
export function targetWithHistory(targets: fc.Arbitrary<Target>, options?: HistoryOptions) {
  return targets.chain((t) => fc.record({ t: fc.constant(t), start: startInstant, moves: history(t, options) }));
}

export function history(c: Pick<Case, 'limit' | 'scaleMs'>, options: HistoryOptions = {}): fc.Arbitrary<Move[]> {
  const keys = Array.from({ length: options.keys ?? 1 }, (_, i) => `k${i}`);
  const move = fc.record({
    dt: clockStep(c.scaleMs),
    cost: costFor(c.limit, options.oversize ?? false),
    key: fc.constantFrom(...keys),
  });
  return fc.array(move, { minLength: 1, maxLength: options.maxLength ?? 60 });
}

/** caseWithHistory draws a configuration, a start instant and a history for it. */
export function caseWithHistory(cases: fc.Arbitrary<Case>, options?: HistoryOptions) {
  return cases.chain((c) => fc.record({ c: fc.constant(c), start: startInstant, moves: history(c, options) }));
}
