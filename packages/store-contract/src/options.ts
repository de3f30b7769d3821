/**
 * What a store tells the contract suite about itself. A store claims capabilities beyond one policy's
 * step; every claimed one is checked to work, every unclaimed one is checked to be refused at
 * construction (or at the call, for reserve) with a TypeError naming it. The default claims all of them:
 * a store that lacks one must say so, and then must refuse it by name rather than half-support it.
 *
 * Two clauses need more of the store than one instance: the differential against the reference model
 * (`differential`: a store deciding at the limiters' clock, and the store's own mutants) and the
 * multi-process burst (`burst`: the store's way of running workers). Both are required: a store passes
 * them, or says why it cannot (`{ skip: 'why' }`), which the suite reports as a skipped clause naming
 * the reason rather than a pass.
 */
import { type Clock, type Store, systemClock } from '@ratekeeper/core';
import type { DifferentialOptions } from './differential/differential-checks.js';
import type { BurstOptions } from './processes/burst-checks.js';
import { CAPABILITIES, type Capability } from './capabilities.js';

export { CAPABILITIES, type Capability };

/** Skip: a clause the store cannot run here, and why (reported as a skipped clause with the reason). */
export interface Skip {
  readonly skip: string;
}

/** The options, over the names of the store's differential mutants and of its burst mutants. */
export interface StoreContractOptions<DiffMutant extends string = string, BurstMutant extends string = string> {
  /** What the store offers (default: every capability). An unclaimed one must be refused by name. */
  readonly capabilities?: Partial<Record<Capability, boolean>>;
  /** The differential against the reference model (differential/differential-checks.ts), or why not. */
  readonly differential: DifferentialOptions<DiffMutant> | Skip;
  /** The multi-process burst on one key (processes/burst-checks.ts), or why not. */
  readonly burst: BurstOptions<BurstMutant> | Skip;
  /**
   * The limiters' clock (default: systemClock). A store on its server's clock ignores it for its
   * decisions; the checks never depend on exact instants either way (long windows, fresh names).
   */
  readonly clock?: Clock;
  /** Per-check timeout in milliseconds for vitest (default 30,000). */
  readonly timeoutMs?: number;
  /**
   * another answers a second instance of the store under test on the same backend (the same server,
   * table, file or namespace), as another process would make it: a block and a charge made through one
   * must be seen through the other (clauses/verb-checks.ts). Without it that clause is skipped.
   */
  readonly another?: (store: Store) => Store | Promise<Store>;
}

export interface ResolvedOptions {
  readonly claims: Readonly<Record<Capability, boolean>>;
  readonly clock: Clock;
  readonly timeoutMs: number;
}

export function resolveOptions(options: Pick<StoreContractOptions, 'capabilities' | 'clock' | 'timeoutMs'> = {}): ResolvedOptions {
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
  bans: /^BanLimiter: limiter .*\bbans\b/,
  concurrency: /lease/i,
  charge: /charge/,
  block: /block/,
};
