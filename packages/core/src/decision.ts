/**
 * Decision: the answer to one request, a plain readonly value. Being limited is a Decision with
 * `allowed: false`, never an exception or a rejected promise.
 */
import type { Policy } from './policy.js';

export interface Decision {
  readonly allowed: boolean;
  /** The policy's quota (capacity or limit). */
  readonly limit: number;
  /** Whole units left after this request (before it, when denied); never negative. */
  readonly remaining: number;
  /**
   * 0 when allowed. When denied, the exact wait in milliseconds after which the same request would be
   * allowed if nothing else happened; Infinity when the cost exceeds what the policy can ever grant.
   */
  readonly retryAfterMs: number;
  /** Milliseconds until the key is back to its empty state (full bucket, no counted requests). */
  readonly resetAfterMs: number;
  /** The policy that produced this decision (for a composite: the most restrictive member's). */
  readonly policy: Policy;
  /** A composite's member decisions, in member order. */
  readonly parts?: readonly Decision[];
  /**
   * Set when the store could not answer and the store's failure policy decided instead: 'open'
   * (allowed without counting), 'closed' (denied; adapters answer 503) or 'fallback' (decided by an
   * in-process limiter with the same policy).
   */
  readonly failure?: 'open' | 'closed' | 'fallback';
  /**
   * Set when the client's address is on the adapters' `denyList`: nothing was counted, no rate-limit
   * header is written, and adapters answer 403.
   */
  readonly forbidden?: true;
}

/** neverSatisfiable tells whether a denial can never turn into an admission by waiting. */
export function neverSatisfiable(decision: Decision): boolean {
  return !decision.allowed && decision.retryAfterMs === Infinity;
}

/** bannedDecision is the denial a banned key gets, `leftMs` before its ban ends (ban.ts). */
export function bannedDecision(policy: Policy, leftMs: number): Decision {
  return { allowed: false, limit: policy.limit, remaining: 0, retryAfterMs: leftMs, resetAfterMs: leftMs, policy };
}
