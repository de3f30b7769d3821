/**
 * decisionProblem checks, cheaply and once per request, that what a limiter answered is a Decision the
 * header writer and the default body can use, so that a broken limiter (a hand-written one resolving
 * null, a store returning NaN figures) becomes one RateLimiterError in decide for every adapter,
 * instead of a TypeError thrown halfway through writing a response.
 *
 * A Decision passes when: `allowed` is a boolean; `limit`, `remaining` and `resetAfterMs` are finite
 * and not negative; `retryAfterMs` is not negative (Infinity is the never-satisfiable denial); `failure`
 * is absent or one of 'open', 'closed', 'fallback'; its policy is one of the limiter's own (checked at
 * construction, so this is one identity test) or a policy whose name is a header-safe token; and
 * `parts`, when present, is a non-empty array of such Decisions. The answer is undefined for a valid
 * Decision, otherwise a short description of the first problem (for the error's cause, never for a
 * client).
 */
import type { Decision } from '../../decision.js';
import type { Policy } from '../../policy.js';
import { describeValue } from '../../validate.js';

const HEADER_SAFE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** decisionProblem is undefined when `value` is a usable Decision, else what is wrong with it. */
export function decisionProblem(value: unknown, own: readonly Policy[]): string | undefined {
  if (plain(value, own)) return undefined;
  const problem = partProblem(value, own);
  if (problem !== undefined) return problem;
  const d = value as Decision;
  if (d.failure !== undefined && d.failure !== 'open' && d.failure !== 'closed' && d.failure !== 'fallback') return `failure is ${describeValue(d.failure)}`;
  const parts: unknown = d.parts;
  if (parts === undefined) return undefined;
  if (!Array.isArray(parts) || parts.length === 0) return `parts is ${describeValue(parts)}, not a non-empty array`;
  for (let i = 0; i < parts.length; i++) {
    const part = partProblem(parts[i], own);
    if (part !== undefined) return `parts[${i}]: ${part}`;
  }
  return undefined;
}

/**
 * plain is the fast path for what a core limiter answers on every request: a single-policy Decision of
 * the limiter's own policy, no failure, no parts. Anything else takes the full check below.
 */
function plain(value: unknown, own: readonly Policy[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const d = value as Decision;
  return (
    d.policy === own[0] &&
    d.parts === undefined &&
    d.failure === undefined &&
    typeof d.allowed === 'boolean' &&
    typeof d.limit === 'number' &&
    typeof d.remaining === 'number' &&
    typeof d.resetAfterMs === 'number' &&
    typeof d.retryAfterMs === 'number' &&
    d.limit >= 0 &&
    d.limit !== Infinity &&
    d.remaining >= 0 &&
    d.remaining !== Infinity &&
    d.resetAfterMs >= 0 &&
    d.resetAfterMs !== Infinity &&
    d.retryAfterMs >= 0
  );
}

function partProblem(value: unknown, own: readonly Policy[]): string | undefined {
  if (typeof value !== 'object' || value === null) return `the limiter answered ${describeValue(value)}, not a Decision`;
  const d = value as Decision;
  if (typeof d.allowed !== 'boolean') return `allowed is ${describeValue(d.allowed)}`;
  if (!figure(d.limit)) return `limit is ${describeValue(d.limit)}`;
  if (!figure(d.remaining)) return `remaining is ${describeValue(d.remaining)}`;
  if (!figure(d.resetAfterMs)) return `resetAfterMs is ${describeValue(d.resetAfterMs)}`;
  if (!(typeof d.retryAfterMs === 'number' && d.retryAfterMs >= 0)) return `retryAfterMs is ${describeValue(d.retryAfterMs)}`;
  return policyProblem(d.policy, own);
}

function policyProblem(policy: unknown, own: readonly Policy[]): string | undefined {
  for (let i = 0; i < own.length; i++) if (own[i] === policy) return undefined;
  if (typeof policy !== 'object' || policy === null) return `policy is ${describeValue(policy)}`;
  const name: unknown = (policy as Policy).name;
  if (typeof name !== 'string' || !HEADER_SAFE_NAME.test(name)) return `policy name ${describeValue(name)} is not a header-safe token`;
  return undefined;
}

/** figure is a finite, non-negative number. */
function figure(value: unknown): boolean {
  return typeof value === 'number' && value >= 0 && value !== Infinity;
}

/** policiesProblem checks a limiter's own policies once, at construction: names must be header-safe. */
export function policiesProblem(policies: readonly unknown[]): string | undefined {
  for (let i = 0; i < policies.length; i++) {
    const problem = policyProblem(policies[i], []);
    if (problem !== undefined) return `policies[${i}]: ${problem}`;
    const p = policies[i] as Policy;
    if (!figure(p.limit) || !figure(p.windowMs)) return `policies[${i}]: limit and windowMs must be finite numbers, got ${describeValue(p.limit)} and ${describeValue(p.windowMs)}`;
  }
  return undefined;
}
