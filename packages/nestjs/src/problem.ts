/**
 * problemOf is core's default limited body (LimitedBodies: 429 or 503 problem+json, 403 for a denied
 * address) as the object Nest's exception layer serializes, parsed once per body (core keeps at most
 * 1,024 bodies a limiter) and frozen, so a denial allocates no parse.
 */
import type { LimitedBody } from '@ratekeeper/core/adapter';
import type { ProblemBody } from './exception.js';

const parsed = new WeakMap<LimitedBody, ProblemBody>();

export function problemOf(body: LimitedBody): ProblemBody {
  let problem = parsed.get(body);
  if (problem === undefined) parsed.set(body, (problem = Object.freeze(JSON.parse(body.text) as ProblemBody)));
  return problem;
}
