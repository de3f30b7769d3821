/**
 * Clocks. A Clock answers `now()` in whole epoch milliseconds. Limiters read their clock once per call
 * and hand the number to the algorithms, which never read a clock themselves; that is what makes every
 * decision reproducible in tests (ManualClock) and identical between the memory store and Redis. Whole
 * milliseconds are what make Retry-After exact: the algorithms answer the first whole millisecond at
 * which a request fits.
 */
import { describeValue } from './validate.js';

export interface Clock {
  now(): number;
}

/** `performance` is an accessor on Node's global object: read it once, not on every call. */
const perf = globalThis.performance;
const origin = perf.timeOrigin;

/**
 * systemClock reads the process's monotonic clock (performance.now) anchored at the epoch instant the
 * process started. It never steps backwards when the wall clock is corrected, and it allocates nothing beyond the
 * number it returns (Node boxes every performance.now() result, as it does Date.now()).
 */
export const systemClock: Clock = {
  now: () => Math.floor(origin + perf.now()),
};

/**
 * ManualClock is a clock that moves only when told to: the clock for deterministic tests. It holds a
 * safe integer number of milliseconds; anything else throws (a TypeError for a non-number, a
 * RangeError for a fraction, NaN, an infinity or an instant beyond 2^53).
 */
export class ManualClock implements Clock {
  #now: number;

  constructor(startMs = 0) {
    this.#now = instant('startMs', startMs);
  }

  now(): number {
    return this.#now;
  }

  /** advance moves the clock forward by `ms` (a whole number ≥ 0) and returns the new time. */
  advance(ms: number): number {
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) {
      const message = `ManualClock: advance(ms) must be a whole number of milliseconds >= 0, got ${describeValue(ms)}`;
      throw typeof ms === 'number' ? new RangeError(message) : new TypeError(message);
    }
    return (this.#now = instant('the advanced instant', this.#now + ms));
  }

  /** set puts the clock at `ms`, backwards included, and returns it. */
  set(ms: number): number {
    return (this.#now = instant('set(ms)', ms));
  }
}

function instant(what: string, ms: unknown): number {
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms)) {
    const message = `ManualClock: ${what} must be a safe integer of epoch milliseconds, got ${describeValue(ms)}`;
    throw typeof ms === 'number' ? new RangeError(message) : new TypeError(message);
  }
  return ms;
}
