/**
 * Decisions from script replies, and the decisions the 'open' and 'closed' failure policies give.
 *
 * A script answers four values per policy (see lua/scripts.ts); numbers arrive as integers or as %.17g
 * strings and are read back to the exact doubles the TypeScript step would have produced. A reply of
 * any other shape (a proxy or client that maps types) is not trusted and counts as a failure.
 *
 * 'open' admits without counting: `remaining` is what a fresh key would report, nothing waits. 'closed'
 * denies with a finite wait, CLOSED_RETRY_AFTER_MS, so adapters can answer 503 with `Retry-After: 1`:
 * never Infinity, because the outage, not the request, is the problem.
 */
import type { Decision, Policy } from '@ratekeeper/core';

export const CLOSED_RETRY_AFTER_MS = 1000;

/** isReply tells whether `reply` has the shape of a script's answer for `policies` policies. */
export function isReply(reply: unknown, policies: number): reply is readonly unknown[] {
  return Array.isArray(reply) && reply.length === 4 * policies;
}

function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value === 'inf') return Infinity;
  if (value === '-inf') return -Infinity;
  return Number(value);
}

/** decisionAt reads the decision of the policy whose four values start at `reply[offset]`. */
export function decisionAt(reply: readonly unknown[], offset: number, policy: Policy): Decision {
  return {
    allowed: reply[offset] === 1,
    limit: policy.limit,
    remaining: numberOf(reply[offset + 1]),
    retryAfterMs: numberOf(reply[offset + 2]),
    resetAfterMs: numberOf(reply[offset + 3]),
    policy,
  };
}

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

export function fallbackDecision(decision: Decision): Decision {
  return { ...decision, failure: 'fallback' };
}
