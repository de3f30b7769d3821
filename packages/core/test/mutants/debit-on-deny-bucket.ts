/**
 * MUTANT. A naive Map-and-object token bucket that takes the tokens before checking and does not give
 * them back on a denial (Kong#6150's read-modify-write shape): every denied request pushes the client's
 * next admission further away.
 */
import { type Decision, type Policy, type TokenBucketPolicy } from '../../src/index.js';
import type { Subject } from '../support/subjects.js';

export function debitOnDenyBucket(policy: TokenBucketPolicy): Subject {
  const buckets = new Map<string, { tokens: number; last: number }>();
  const decide = (key: string, now: number, cost: number, record: boolean): Decision => {
    const b = buckets.get(key) ?? { tokens: policy.capacity, last: now };
    const tokens = Math.min(policy.capacity, b.tokens + (Math.max(0, now - b.last) * policy.refillPerSecond) / 1000) - cost;
    const allowed = tokens >= -1e-9;
    if (record) buckets.set(key, { tokens: Math.max(tokens, -policy.capacity), last: Math.max(now, b.last) });
    const wait = Math.ceil((-tokens * 1000) / policy.refillPerSecond);
    return decision(policy, allowed, Math.max(0, Math.floor(tokens + 1e-9)), allowed ? 0 : cost > policy.capacity ? Infinity : wait);
  };
  return {
    consume: (key, now, cost) => decide(key, now, cost, true),
    peek: (key, now, cost) => decide(key, now, cost, false),
    allow: (key, now, cost) => decide(key, now, cost, true).allowed,
  };
}

function decision(policy: Policy, allowed: boolean, remaining: number, retryAfterMs: number): Decision {
  return { allowed, limit: policy.limit, remaining, retryAfterMs, resetAfterMs: 0, policy };
}
