/**
 * Telemetry: how decisions reach an observer (metrics, traces, logs). The adapters' decide is the one
 * place every request passes through, so it is the one place that reports: once per decision it takes,
 * after the limiter answered and before the response is chosen, it calls `telemetry.decided` with the
 * Decision, what that decision meant for the request (its DecisionOutcome) and, for a limiter that
 * answered with a promise (a remote store), how long the store took in milliseconds.
 *
 * With no telemetry configured decide measures nothing and calls nothing: the option costs one
 * `undefined` check per request. An observer must not throw; if one does, its error is dropped, because
 * reporting must never change or lose a response.
 *
 * Outcomes:
 *   'allowed'          admitted by the limiter's store
 *   'limited'          denied (429)
 *   'shadow_limited'   denied, but shadow mode let it through
 *   'failure_open'     the store failed; policy 'open' admitted it uncounted
 *   'failure_closed'   the store failed; policy 'closed' denied it (503)
 *   'fallback_allowed' / 'fallback_limited'   the store failed; the in-process fallback decided
 */
import type { Decision } from './decision.js';
import { describeValue } from './validate.js';

export type DecisionOutcome = 'allowed' | 'limited' | 'shadow_limited' | 'failure_open' | 'failure_closed' | 'fallback_allowed' | 'fallback_limited';

export const DECISION_OUTCOMES: readonly DecisionOutcome[] = Object.freeze([
  'allowed',
  'limited',
  'shadow_limited',
  'failure_open',
  'failure_closed',
  'fallback_allowed',
  'fallback_limited',
]);

export interface Telemetry {
  /**
   * decided reports one decision. `storeMs` is the time the limiter's promise took (a remote store),
   * or undefined when the limiter answered synchronously (the memory store).
   */
  decided(decision: Decision, outcome: DecisionOutcome, storeMs: number | undefined): void;
}

/** outcomeOf names what `decision` meant for the request, given whether shadow mode is on. */
export function outcomeOf(decision: Decision, shadow: boolean): DecisionOutcome {
  const failure = decision.failure;
  if (failure === undefined) return decision.allowed ? 'allowed' : shadow ? 'shadow_limited' : 'limited';
  if (failure === 'fallback') return decision.allowed ? 'fallback_allowed' : 'fallback_limited';
  return failure === 'open' ? 'failure_open' : 'failure_closed';
}

/** checkTelemetry accepts an object with a `decided` method. */
export function checkTelemetry(owner: string, value: unknown): Telemetry {
  if (typeof value !== 'object' || value === null || typeof (value as Telemetry).decided !== 'function') {
    throw new TypeError(`${owner}: telemetry must be an object with a decided(decision, outcome, storeMs) method, got ${describeValue(value)}`);
  }
  return value as Telemetry;
}
