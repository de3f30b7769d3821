/**
 * Backend: what every binding of one PostgresStore shares: the batcher its calls go through, the
 * failure policy with its fallback store and divisor, the time source and the report of failures.
 */
import type { Algorithm, Policy } from '@ratekeeper/core';
import { Fallback, type FailureInfo, type FailurePolicy, type FallbackStore } from '@ratekeeper/core/store';
import type { Batcher } from '../wire/batcher.js';

export interface Backend {
  readonly batcher: Batcher;
  readonly onFailure: FailurePolicy;
  readonly fallbackStore: FallbackStore;
  /** The number each fallback divides its policy by: the option, or the peers last seen. */
  fallbackDivisor(): number;
  report(info: FailureInfo): void;
}

/** fallbackOf is the in-process fallback of `policy`: its share of the limit (core's store kit), bound on the fallback store. */
export function fallbackOf(backend: Backend, algorithm: Algorithm<Policy>, policy: Policy): Fallback {
  return new Fallback(backend.fallbackStore, algorithm, policy, () => backend.fallbackDivisor());
}
