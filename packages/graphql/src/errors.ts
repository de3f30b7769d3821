/**
 * The two refusals, as GraphQL errors a client can act on. Both carry `extensions.code`; the HTTP
 * status and headers ride in `extensions.http`, which GraphQL Yoga and Apollo Server both turn into the
 * response's status and headers and strip from the body (each wants its own header container, hence
 * `Headers`).
 *
 * - `THROTTLED`, HTTP 429: the client's budget cannot hold the operation's estimate now. Nothing ran.
 *   `extensions.retryAfterSeconds` and `Retry-After` are the wait in whole seconds, rounded up, at
 *   least 1 (core's `retryAfterSeconds`: never earlier than the truth); both are absent when the
 *   estimate exceeds what the budget can ever hold (waiting cannot help).
 * - `MAX_COST_EXCEEDED`, HTTP 400: the operation costs more than `maxCost`, the per-operation ceiling,
 *   and is refused before it runs, whatever the budget.
 */
import { type Decision, retryAfterSeconds } from '@ratekeeper/core';
import { GraphQLError, type GraphQLErrorOptions } from 'graphql';

/** Headers builds the `extensions.http.headers` value the server reads (a plain object for Yoga, a Map for Apollo). */
export type Headers = (entries: readonly (readonly [string, string])[]) => unknown;

export function throttled(cost: number, decision: Decision, headers: Headers): GraphQLError {
  const seconds = retryAfterSeconds(decision);
  if (seconds === undefined) {
    return error(`Throttled: this operation costs ${cost}, more than the budget of ${decision.limit} can ever hold`, {
      code: 'THROTTLED',
      http: { status: 429, headers: headers([]) },
    });
  }
  return error(`Throttled: this operation costs ${cost}, ${decision.remaining} of ${decision.limit} available; retry in ${seconds} s`, {
    code: 'THROTTLED',
    retryAfterSeconds: seconds,
    http: { status: 429, headers: headers([['Retry-After', String(seconds)]]) },
  });
}

export function tooCostly(cost: number, maxCost: number, headers: Headers): GraphQLError {
  return error(`Operation too costly: it costs ${cost}, the most one operation may cost is ${maxCost}`, {
    code: 'MAX_COST_EXCEEDED',
    cost,
    maxCost,
    http: { status: 400, headers: headers([]) },
  });
}

// Yoga and Apollo each augment graphql's GraphQLErrorExtensions with their own `http` type (a plain
// object of headers, a Map): where both are installed the two cannot be met at once, so the
// extensions are typed here as what they are, a plain record.
function error(message: string, extensions: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, { extensions } as unknown as GraphQLErrorOptions);
}
