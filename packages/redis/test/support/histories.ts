/**
 * The differential histories for Redis: @ratekeeper/store-contract's, the one source every store's
 * differential draws from (its differential/histories.ts), held back by MARGIN_MS. In client time
 * `now` is virtual, but Redis expires keys by its own real clock: a key whose TTL ran out in real time
 * while the virtual clock stood still would read as empty on Redis and not in memory. So every TTL a
 * generated policy can write is at least MARGIN_MS, far longer than a history takes to replay (refills
 * of at most one per second, windows longer than it), and window instants never fall in the
 * last MARGIN_MS of a window (`instantsOf(start, members).next(dt)` moves them to its end: a fixed
 * window's, or a first-request window's that an earlier instant of the history could have started). `steps` are the
 * shared rate steps without refunds (refunds have their own tests here: refund.test.ts).
 */
import { type AnySpec, Instants, RATE_OPS, type Step as RateStep, historiesWith } from '@ratekeeper/store-contract';
import type fc from 'fast-check';

export { type Spec, limitOf, makeLimiter, startInstant } from '@ratekeeper/store-contract';

/** Step: a shared rate step that is never a refund. */
export interface Step extends Omit<RateStep, 'op'> {
  readonly op: Exclude<RateStep['op'], 'refund'>;
}

export const MARGIN_MS = 1000;

const histories = historiesWith({ marginMs: MARGIN_MS });

/** nextInstant: `dt` after `now`, out of a fixed window's last MARGIN_MS (it knows no history: not for first-request windows). */
export const { specs, composites, nextInstant } = histories;

/** instantsOf: a history's instants from `start`, held out of every window's last MARGIN_MS (no grace bound). */
export function instantsOf(start: number, members: readonly AnySpec[]): Instants {
  return new Instants(start, Number.POSITIVE_INFINITY, members, MARGIN_MS);
}

const OPS = RATE_OPS.filter((op) => op !== 'refund');

/** steps: the shared rate steps without refunds, `minLength` of them or more (default 1). */
export function steps(members: readonly AnySpec[], minLength = 1): fc.Arbitrary<Step[]> {
  return histories.steps(members, { ops: OPS, minLength }) as fc.Arbitrary<Step[]>;
}
