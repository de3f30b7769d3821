/**
 * MUTANT — a composite that is not all-or-nothing: it consumes every member separately (one call per
 * member, in parallel, as rate-limiter-flexible's RateLimiterUnion does) and merges the decisions. A
 * request denied by one member has still been counted by the others, so members' counters drift above
 * what was admitted. The composite concurrency harness must catch that.
 */
import { mostRestrictive } from '@ratekeeper/core';

export function parallelUnion(limiters) {
  return {
    consume: async (key, cost = 1) => mostRestrictive(await Promise.all(limiters.map((l) => l.consume(key, cost)))),
  };
}
