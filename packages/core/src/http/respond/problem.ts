/**
 * The default body of a limited response: RFC 9457 `application/problem+json` with the problem types
 * of draft-ietf-httpapi-ratelimit-headers-10: `quota-exceeded` (429) naming the violated policies, or
 * `temporary-reduced-capacity` (503) when the store was unavailable and the failure policy is
 * 'closed', or a plain 403 for an address on the deny list. The body carries policy names and numbers only: never a key, never a store's error text.
 */
import type { Decision } from '../../decision.js';
import { retryAfterSeconds } from './headers.js';

const PROBLEM_TYPES = 'https://iana.org/assignments/http-problem-types';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface LimitedResponse {
  readonly status: 429 | 503 | 403;
  readonly contentType: string;
  readonly body: string;
}

/** limitedResponse is the default status and problem+json body for a denied decision. */
export function limitedResponse(decision: Decision): LimitedResponse {
  if (decision.forbidden === true) {
    const body = { type: 'about:blank', title: 'Forbidden', status: 403, detail: 'Requests from this address are not accepted.' };
    return { status: 403, contentType: PROBLEM_CONTENT_TYPE, body: JSON.stringify(body) };
  }
  if (decision.failure === 'closed') {
    const body = { type: `${PROBLEM_TYPES}#temporary-reduced-capacity`, title: 'Service temporarily unable to apply its rate limits', status: 503 };
    return { status: 503, contentType: PROBLEM_CONTENT_TYPE, body: JSON.stringify(body) };
  }
  const violated = (decision.parts ?? [decision]).filter((d) => !d.allowed).map((d) => d.policy.name);
  const retry = retryAfterSeconds(decision);
  const detail = retry === undefined ? 'The request costs more than the policy can ever grant.' : `Retry after ${retry} s.`;
  const body = {
    type: `${PROBLEM_TYPES}#quota-exceeded`,
    title: 'Request cannot be satisfied as assigned quota has been exceeded',
    status: 429,
    detail,
    'violated-policies': violated,
  };
  return { status: 429, contentType: PROBLEM_CONTENT_TYPE, body: JSON.stringify(body) };
}
