/**
 * What a store tells the contract suite about itself. A store claims capabilities beyond one policy's
 * step; every claimed one is checked to work, every unclaimed one is checked to be refused at
 * construction (or at the call, for reserve) with a TypeError naming it. The default claims all of them:
 * a store that lacks one must say so, and then must refuse it by name rather than half-support it.
 */
import { type Clock, systemClock } from '@ratekeeper/core';

/** The capabilities beyond a single policy's consume/peek/allow/reset. */
export type Capability = 'composite' | 'refund' | 'reserve' | 'bans' | 'concurrency';
export const CAPABILITIES: readonly Capability[] = ['composite', 'refund', 'reserve', 'bans', 'concurrency'];

export interface StoreContractOptions {
  /** What the store offers (default: every capability). An unclaimed one must be refused by name. */
  readonly capabilities?: Partial<Record<Capability, boolean>>;
  /**
   * The limiters' clock (default: systemClock). A store on its server's clock ignores it for its
   * decisions; the checks never depend on exact instants either way (long windows, fresh names).
   */
  readonly clock?: Clock;
  /** Per-check timeout in milliseconds for vitest (default 30,000). */
  readonly timeoutMs?: number;
}

export interface ResolvedOptions {
  readonly claims: Readonly<Record<Capability, boolean>>;
  readonly clock: Clock;
  readonly timeoutMs: number;
}

export function resolveOptions(options: StoreContractOptions = {}): ResolvedOptions {
  const given = options.capabilities ?? {};
  for (const name of Object.keys(given)) {
    if (!CAPABILITIES.includes(name as Capability)) throw new TypeError(`storeContractSuite: unknown capability ${JSON.stringify(name)} (known: ${CAPABILITIES.join(', ')})`);
  }
  const claims = Object.fromEntries(CAPABILITIES.map((c) => [c, given[c] ?? true])) as Record<Capability, boolean>;
  return { claims, clock: options.clock ?? systemClock, timeoutMs: options.timeoutMs ?? 30_000 };
}

/** The words a refusal's message must contain, per capability (today's refusals in core and the stores). */
export const REFUSAL: Readonly<Record<Capability, RegExp>> = {
  composite: /consumeAll/,
  refund: /refund/,
  reserve: /reserv/,
  bans: /\bban/i,
  concurrency: /lease/i,
};
