/**
 * Mutants of the concurrency step, each breaking one guarantee that test/concurrency.test.ts must catch:
 * - `evictableConcurrency`: not pinned, so the memory store may evict a key holding leases under a key
 *   flood (it then admits beyond the limit);
 * - `negativeRelease`: a release below zero, banking leases for later (over-admits after stray releases);
 * - `timeExpiringLeases`: leases that the memory store drops as empty once time passes, like a window.
 */
import { type Algorithm, type ConcurrencyPolicy } from '../../src/index.js';
import { concurrency } from '../../src/store/index.js';

export const evictableConcurrency: Algorithm<ConcurrencyPolicy> = { ...concurrency, pinned: undefined } as unknown as Algorithm<ConcurrencyPolicy>;

export const negativeRelease: Algorithm<ConcurrencyPolicy> = {
  ...concurrency,
  refund(_policy, state, offset, _now, cost, out) {
    out.next[0] = (state[offset] as number) - cost;
    out.ttlMs = Infinity;
    return true;
  },
};

export const timeExpiringLeases: Algorithm<ConcurrencyPolicy> = { ...concurrency, emptyAt: () => 0 };
