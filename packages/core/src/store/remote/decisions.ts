/**
 * The decisions a remote store's failure policy gives when its server cannot decide.
 *
 * 'open' admits without counting: `remaining` is what a fresh key would report, nothing waits.
 * 'closed' denies with a finite wait, CLOSED_RETRY_AFTER_MS, so adapters can answer 503 with
 * `Retry-After: 1`: never Infinity, because the outage, not the request, is the problem. 'fallback'
 * decides on an in-process binding of the policy's share (./fallback.ts) and marks the decision.
 */
import type { Decision } from '../../decision.js';
import type { Policy } from '../../policy.js';
import type { StoreBinding } from '../contract.js';

export type FailurePolicy = 'fallback' | 'open' | 'closed';

export const CLOSED_RETRY_AFTER_MS = 1000;

export function openDecision(policy: Policy, cost: number): Decision {
  const remaining = policy.limit - cost;
  return { allowed: true, limit: policy.limit, remaining: remaining > 0 ? remaining : 0, retryAfterMs: 0, resetAfterMs: 0, policy, failure: 'open' };
}

export function closedDecision(policy: Policy): Decision {
  return {
    allowed: false,
    limit: policy.limit,
    remaining: 0,
    retryAfterMs: CLOSED_RETRY_AFTER_MS,
    resetAfterMs: CLOSED_RETRY_AFTER_MS,
    policy,
    failure: 'closed',
  };
}

/**
 * fallbackDecision marks the fallback's decision and gives it the limiter's own policy object (for
 * headers and precomputed bodies), even when the fallback enforces a share of the limit: `limit` and
 * the figures stay the share's.
 */
export function fallbackDecision(decision: Decision, policy: Policy): Decision {
  return { ...decision, policy, failure: 'fallback' };
}

/** decideByPolicy is `onFailure`'s decision for one policy, on `fallback` when it is 'fallback'. */
export function decideByPolicy(onFailure: FailurePolicy, policy: Policy, fallback: StoreBinding<'sync'>, key: string, now: number, cost: number, commit: boolean): Decision {
  if (onFailure === 'open') return openDecision(policy, cost);
  if (onFailure === 'closed') return closedDecision(policy);
  return fallbackDecision(commit ? fallback.consume(key, now, cost) : fallback.peek(key, now, cost), policy);
}
