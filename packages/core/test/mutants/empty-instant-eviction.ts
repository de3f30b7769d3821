/**
 * MUTANT. The memory store's eviction ranked by the empty instant alone (as it was before issue 7): the
 * wrapped algorithm reports every key as holding nothing, so the store's eviction order falls back to
 * the nearest empty instant, then the oldest. Every key counted in one window shares its empty
 * instant, so a flood of fresh keys evicts a blocked window key before any of its own.
 */
import type { Algorithm, Policy } from '../../src/index.js';

export function emptyInstantOnly<P extends Policy>(algorithm: Algorithm<P>): Algorithm<P> {
  return { ...algorithm, fill: () => 0 };
}
