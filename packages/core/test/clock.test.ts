/**
 * systemClock answers whole epoch milliseconds from the monotonic clock: a safe integer on every read,
 * never smaller than the read before, and anchored at the epoch (it agrees with Date.now() to within
 * the wall clock corrections since the process started, which a test process does not see).
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../src/index.js';

describe('systemClock', () => {
  it('reads safe integers that never decrease', () => {
    let previous = systemClock.now();
    for (let i = 0; i < 100_000; i++) {
      const now = systemClock.now();
      if (!Number.isSafeInteger(now) || now < previous) throw new Error(`read ${i}: ${now} after ${previous}`);
      previous = now;
    }
  });

  it('is anchored at the epoch', () => {
    expect(Math.abs(systemClock.now() - Date.now())).toBeLessThan(1000);
  });
});
