/**
 * kthSmallest agrees with sorting for any values and any k (the memory store's eviction cutoff relies
 * on it), including tables of equal values, which a one-sided partition would make quadratic.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kthSmallest } from './select.js';

describe('kthSmallest', () => {
  it('returns what sorting would put at index k, for any values and any k', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true })), { minLength: 1, maxLength: 200 }), fc.nat(), (values, n) => {
        const k = n % values.length;
        const sorted = Float64Array.from(values).sort();
        // === rather than Object.is: -0 and 0 are the same instant to the store.
        expect(kthSmallest(Float64Array.from(values), k) === sorted[k]).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('handles a table of identical values and a single value', () => {
    expect(kthSmallest(new Float64Array(1000).fill(7), 500)).toBe(7);
    expect(kthSmallest(Float64Array.of(3), 0)).toBe(3);
  });
});
