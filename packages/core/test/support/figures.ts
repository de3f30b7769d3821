/**
 * figureProblem checks that every number in a Decision is a figure a header can carry: `remaining` a
 * whole number in [0, limit], `retryAfterMs` 0 when allowed and a whole number ≥ 1 (or Infinity, never
 * satisfiable) when denied, `resetAfterMs` a whole number ≥ 0. Time is whole milliseconds, so every
 * figure is whole. Returns a description of the first problem, or undefined.
 */
import type { Decision } from '../../src/index.js';

export function figureProblem(d: Decision): string | undefined {
  const whole = (n: number) => Number.isSafeInteger(n) && n >= 0;
  if (typeof d.allowed !== 'boolean') return `allowed is ${String(d.allowed)}`;
  if (!Number.isSafeInteger(d.limit) || d.limit < 1) return `limit is ${d.limit}`;
  if (!whole(d.remaining) || d.remaining > d.limit) return `remaining is ${d.remaining} (limit ${d.limit})`;
  if (d.allowed && d.retryAfterMs !== 0) return `allowed with retryAfterMs ${d.retryAfterMs}`;
  if (!d.allowed && d.retryAfterMs !== Infinity && !(whole(d.retryAfterMs) && d.retryAfterMs >= 1)) return `denied with retryAfterMs ${d.retryAfterMs}`;
  if (!whole(d.resetAfterMs)) return `resetAfterMs is ${d.resetAfterMs}`;
  return undefined;
}

/** expectFigures throws with the step's context when a decision carries a bad figure. */
export function expectFigures(d: Decision, context: string): void {
  const problem = figureProblem(d);
  if (problem !== undefined) throw new Error(`${context}: ${problem} in ${JSON.stringify({ ...d, policy: d.policy.name, parts: undefined })}`);
}
