/**
 * Clocks. A Clock answers `now()` in whole epoch milliseconds. Limiters read their clock once per call
 * and hand the number to the algorithms, which never read a clock themselves; that is what makes every
 * decision reproducible in tests (ManualClock) and identical between the memory store and Redis.
 */
import { describeValue } from './validate.js';

export interface Clock {
  now(): number;
}

const origin = performance.timeOrigin;

/**
 * systemClock reads the process's monotonic clock (performance.now) anchored at the epoch instant the
 * process started. It never steps backwards when the wall clock is corrected, and it never allocates.
 */
export const systemClock: Clock = {
  now: () => Math.floor(origin + performance.now()),
};

/** ManualClock is a clock that moves only when told to: the clock for deterministic tests. */
export class ManualClock implements Clock {
  #now: number;

  constructor(startMs = 0) {
    this.#now = checkInstant('constructor', startMs);
  }

  now(): number {
    return this.#now;
  }

  /** advance moves the clock forward by `ms` (a finite number ≥ 0) and returns the new time. */
  advance(ms: number): number {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`ManualClock: advance(ms) needs a finite number >= 0, got ${describeValue(ms)}`);
    }
    return (this.#now += ms);
  }

  /** set puts the clock at `ms`, backwards included, and returns it. */
  set(ms: number): number {
    return (this.#now = checkInstant('set', ms));
  }
}

function checkInstant(method: string, ms: number): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) {
    throw new RangeError(`ManualClock: ${method} needs a finite number of milliseconds, got ${describeValue(ms)}`);
  }
  return ms;
}
