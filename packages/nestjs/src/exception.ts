/**
 * RateLimitException is how a denied request leaves the guard: an HttpException, so it goes through
 * Nest's exception layer like any other (an `@Catch(RateLimitException)` filter of the user's sees it
 * first; without one, Nest's default filter answers it). Its status is the denial's (429, or 503 when a
 * store failing 'closed' decided) and its response body is core's problem+json object (RFC 9457), the
 * very body every other adapter sends; the guard has already written the rate-limit headers and
 * `Retry-After` on the response, and `Content-Type: application/problem+json`, which Nest's default
 * filter keeps (its Express and Fastify adapters send any `+json` type as JSON).
 *
 * For GraphQL, `extensions` carries the machine-readable part (graphql-js copies an error's
 * extensions into the GraphQLError it reports): `code` ('TOO_MANY_REQUESTS' / 'SERVICE_UNAVAILABLE'),
 * `retryAfterMs` and `retryAfterSeconds` (the Retry-After value; absent for a request no wait can
 * admit). When the invocation had no response to write headers on (Apollo on Fastify without a
 * `reply` in its context), `extensions.http` hands Apollo Server the status and headers to send.
 */
import { HttpException } from '@nestjs/common';
import type { Decision } from '@ratekeeper/core';

/** ProblemBody is core's default limited body, as the object Nest serializes. */
export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly 'violated-policies'?: readonly string[];
}

/** RateLimitExtensions are the GraphQL error extensions of a denial. */
export interface RateLimitExtensions {
  readonly code: 'TOO_MANY_REQUESTS' | 'SERVICE_UNAVAILABLE';
  readonly retryAfterMs?: number;
  readonly retryAfterSeconds?: number;
  readonly http?: { readonly status: number; readonly headers: ReadonlyMap<string, string> };
}

/** RateLimitException is thrown by RateLimitGuard for a request its limit denies (see above). */
export class RateLimitException extends HttpException {
  /** The denial: its policy, `retryAfterMs`, `remaining` and `limit`. */
  readonly decision: Decision;
  /** The rate-limit fields written for the denial (`Retry-After` included), by name. */
  readonly headers: Readonly<Record<string, string>>;
  /** What GraphQL servers report in the error's `extensions`. */
  readonly extensions: RateLimitExtensions;

  constructor(decision: Decision, body: ProblemBody, headers: Readonly<Record<string, string>>, unanswered = false) {
    super(body, body.status);
    this.name = 'RateLimitException';
    // The problem's title, not Nest's "Rate Limit Exception": GraphQL servers report the message.
    this.message = body.title;
    this.decision = decision;
    this.headers = headers;
    const retry = headers['Retry-After'];
    this.extensions = {
      code: body.status === 503 ? 'SERVICE_UNAVAILABLE' : 'TOO_MANY_REQUESTS',
      ...(retry === undefined ? {} : { retryAfterMs: decision.retryAfterMs, retryAfterSeconds: Number(retry) }),
      ...(unanswered ? { http: { status: body.status, headers: new Map(Object.entries(headers)) } } : {}),
    };
  }
}
