/**
 * The budget's state as responses carry it, in `extensions.cost`, in the shape Shopify's Admin API
 * made familiar: `requestedQueryCost` (the estimate held up front), `actualQueryCost` (what the
 * operation cost, null when it did not run) and `throttleStatus` (`maximumAvailable`: the budget's
 * size; `currentlyAvailable`: whole units left once this operation's refund is in; `restoreRate`:
 * units per second, for a token bucket). Pure.
 *
 * `currentlyAvailable` is the store's answer to this operation's charge plus its refund, capped at the
 * size: it leaves out other requests of the same client in flight meanwhile, and costs no second round
 * trip to the store.
 */
import type { Decision } from '@ratekeeper/core';

export interface ThrottleStatus {
  readonly maximumAvailable: number;
  readonly currentlyAvailable: number;
  /** Units restored per second, present when the budget is a token bucket. */
  readonly restoreRate?: number;
}

export interface CostExtension {
  readonly requestedQueryCost: number;
  readonly actualQueryCost: number | null;
  /** Absent when no budget decided (a ceiling alone, or an operation that costs nothing). */
  readonly throttleStatus?: ThrottleStatus;
}

/** costExtension builds `extensions.cost` for an operation estimated at `requested`. */
export function costExtension(requested: number, actual: number | null, decision: Decision | undefined, refunded: number): CostExtension {
  if (decision === undefined) return { requestedQueryCost: requested, actualQueryCost: actual };
  return { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: throttleStatus(decision, refunded) };
}

function throttleStatus(decision: Decision, refunded: number): ThrottleStatus {
  const policy = decision.policy;
  const currentlyAvailable = Math.min(decision.limit, decision.remaining + refunded);
  if (policy.algorithm !== 'token-bucket') return { maximumAvailable: decision.limit, currentlyAvailable };
  return { maximumAvailable: decision.limit, currentlyAvailable, restoreRate: policy.refillPerSecond };
}
