/**
 * Backend: what every binding of one SqliteStore shares (the file, the failure policy, the fallback
 * store and the report of failures), and the pieces of deciding every binding does alike: the
 * failure policy's decision and the fallback's share of a limit (both core's store kit,
 * `@ratekeeper/core/store`, as for every store), and figures read at a held instant.
 */
import type { Algorithm, Decision, Policy, StoreBinding } from '@ratekeeper/core';
import { type FailurePolicy, Fallback, type FallbackStore, decideByPolicy } from '@ratekeeper/core/store';
import type { Failure, FailureInfo } from '../file/failure.js';
import type { SqliteFile } from '../file/file.js';

export interface Backend {
  readonly file: SqliteFile;
  readonly onFailure: FailurePolicy;
  readonly fallbackStore: FallbackStore;
  /** The number each fallback divides its policy by: the option, or the peers last seen (../file/peers.ts). */
  fallbackDivisor(): number;
  readonly maxKeys: number;
  readonly leaseTtlMs: number;
  report(info: FailureInfo): void;
}

export type Operation = FailureInfo['operation'];

/** info is the FailureInfo of `failure` for `operation` on `policy`. */
export function info(operation: Operation, policy: string, failure: Failure): FailureInfo {
  return failure.error === undefined ? { operation, policy, reason: failure.reason } : { operation, policy, reason: failure.reason, error: failure.error };
}

/** decideWithout is the failure policy's decision for one binding (core's store kit: one implementation for every store). */
export function decideWithout(backend: Backend, policy: Policy, fallback: StoreBinding<'sync'>, key: string, now: number, cost: number, commit: boolean): Decision {
  return decideByPolicy(backend.onFailure, policy, fallback, key, now, cost, commit);
}

/** fallbackOf is the in-process fallback of `policy`: its share of the limit (core's store kit), bound on the fallback store. */
export function fallbackOf(backend: Backend, algorithm: Algorithm<Policy>, policy: Policy): Fallback {
  return new Fallback(backend.fallbackStore, algorithm, policy, () => backend.fallbackDivisor());
}

/**
 * heldAt reports a decision taken at `at`, later than the caller's `now` (a file swept after `now`:
 * ../rows/table.ts), as seen from `now`: its waits lengthened by the difference, never shortened.
 */
export function heldAt(decision: Decision, at: number, now: number): Decision {
  if (!(at > now)) return decision;
  const by = at - now;
  const retryAfterMs = decision.retryAfterMs > 0 ? decision.retryAfterMs + by : decision.retryAfterMs;
  const resetAfterMs = decision.resetAfterMs > 0 ? decision.resetAfterMs + by : decision.resetAfterMs;
  return { ...decision, retryAfterMs, resetAfterMs };
}
