/**
 * The differential against the reference model, for every store: the same random histories
 * (./histories.ts) replayed on a MemoryStore (core's pure steps) and on the store, deciding at the
 * limiters' clock (`time: 'client'` or the store's equivalent), must give identical answers, field for
 * field and bit for bit (./replay.ts). One clause per algorithm (GCRA included) over consumes, peeks,
 * allows, resets and, when the store claims them, refunds; then, per capability the store claims:
 * composites (all or nothing), bookings and cancels between the other calls (of composites too),
 * bans (refunds lifting them, and beside a composite of the banned limiter when composites are claimed
 * too), and concurrency leases (acquires, releases, peeks, resets). A store that batches (`batches`)
 * is also held to deciding a history fired all at once as the same calls one by one (bookings and
 * leases always go one at a time: a cancel or a release follows the answer it undoes). Each mutant the
 * store names must fail the property of its history within MUTANT_RUNS histories: the check that it
 * does is a clause too.
 */
import fc from 'fast-check';
import type { Store } from '@ratekeeper/core';
import { type Check, check } from '../check.js';
import type { Capability } from '../capabilities.js';
import { type AnySpec, RATE_ALGORITHMS, type RateAlgorithm, RATE_OPS, type Spec, historiesWith, leaseHistories, startInstant } from './histories.js';
import { type Run, replayBans, replayBookings, replayLeases, replayRates } from './replay.js';

/** The histories a mutant is caught on: one algorithm's rates, composites, bookings, bans or leases. */
export type HistoryKind = 'rates' | 'composites' | 'bookings' | 'composite-bookings' | 'bans' | 'leases';

export interface DifferentialMutant<Mutant extends string> {
  /** What the mutant does wrong, for the clause's title. */
  readonly what: string;
  readonly mutant: Mutant;
  readonly history: HistoryKind;
  /** The algorithm of a rates, bookings or bans history (default token-bucket). */
  readonly algorithm?: RateAlgorithm;
}

export interface DifferentialOptions<Mutant extends string = string> {
  /**
   * store answers a store of the kind under test that decides at the limiters' clock (`time: 'client'`),
   * otherwise with default options: of the package's own build, or of `mutant`'s. It is called once
   * per clause (answer the same store each time if making one is costly; the names are always new).
   */
  readonly store: (mutant?: Mutant) => Store | Promise<Store>;
  /** The store deletes state once empty for this long (its EXPIRED_GRACE_MS); default: it never does. */
  readonly graceMs?: number;
  /** The store's keys expire by a real clock: every TTL a history writes lasts this long (Redis: 1000); default 0. */
  readonly marginMs?: number;
  /** The store decides calls in flight together in batches: each history also runs all at once. */
  readonly batches?: boolean;
  /** Histories per property (default RATEKEEPER_DIFF_RUNS, else 25). */
  readonly runs?: number;
  /** The keys the histories use (default DIFFERENTIAL_KEYS). */
  readonly keys?: readonly string[];
  /** The store's mutants, each caught by the differential of its history. */
  readonly mutants?: readonly DifferentialMutant<Mutant>[];
  /** Per-clause timeout in milliseconds (default 300,000). */
  readonly timeoutMs?: number;
}

/** Keys a client could send: empty, a lone surrogate, long ones differing only at the end, NUL. */
export const DIFFERENTIAL_KEYS: readonly string[] = ['', '\ud800', `${'k'.repeat(300)}a`, `${'k'.repeat(300)}b`, 'é\u0000\uffff'];

/** RATEKEEPER_FC_SEED replays the histories of a reported seed (fast-check prints it with each counterexample). */
const SEED = process.env['RATEKEEPER_FC_SEED'] === undefined ? {} : { seed: Number(process.env['RATEKEEPER_FC_SEED']) };

/** How many histories a mutant gets to be caught in. */
export const MUTANT_RUNS = 200;

type Claims = Readonly<Record<Capability, boolean>>;

/** differentialChecks lists the differential's clauses for a store with these claims (see above). */
export function differentialChecks<Mutant extends string>(options: DifferentialOptions<Mutant>, claims: Claims): Check[] {
  const h = historiesWith({ marginMs: options.marginMs ?? 0 });
  const runs = options.runs ?? Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 25);
  const keys = options.keys ?? DIFFERENTIAL_KEYS;
  const ops = RATE_OPS.filter((op) => claims.refund || op !== 'refund');
  const timeoutMs = options.timeoutMs ?? 300_000;

  /** property answers the fast-check property of `kind` histories on `store`. */
  function property(kind: HistoryKind, algorithm: RateAlgorithm, store: Store, fresh: () => string): fc.IAsyncProperty<[unknown]> {
    const run = (together: boolean): Run => ({ store, fresh, keys, graceMs: options.graceMs ?? Number.POSITIVE_INFINITY, marginMs: h.marginMs, together, monotone: true });
    const together = options.batches === true ? fc.boolean() : fc.constant(false);
    const one = h.specs[algorithm] as fc.Arbitrary<AnySpec>;
    const properties = {
      rates: () =>
        fc.asyncProperty(
          one.chain((s) => fc.tuple(fc.constant([s]), startInstant, h.steps([s], { keys: keys.length, ops }), together)),
          ([m, t0, steps, all]) => replayRates(run(all), m, t0, steps),
        ),
      composites: () =>
        fc.asyncProperty(
          h.composites.chain((m) => fc.tuple(fc.constant(m as AnySpec[]), startInstant, h.steps(m, { keys: keys.length, ops }), together)),
          ([m, t0, steps, all]) => replayRates(run(all), m, t0, steps),
        ),
      bookings: () =>
        fc.asyncProperty(
          (h.bookingSpecs[algorithm] as fc.Arbitrary<AnySpec>).chain((s) => fc.tuple(fc.constant([s]), startInstant, h.bookingSteps([s]))),
          ([m, t0, steps]) => replayBookings(run(false), m, t0, steps),
        ),
      'composite-bookings': () =>
        fc.asyncProperty(
          h.composites.chain((m) => fc.tuple(fc.constant(m as AnySpec[]), startInstant, h.bookingSteps(m))),
          ([m, t0, steps]) => replayBookings(run(false), m, t0, steps),
        ),
      bans: () =>
        fc.asyncProperty(
          h
            .banHistories(algorithm)
            .chain((b) =>
              fc.tuple(
                fc.constant(b),
                h.specs['fixed-window'] as fc.Arbitrary<Spec>,
                startInstant,
                fc.array(fc.nat(4), { minLength: b.history.length, maxLength: b.history.length }),
                together,
              ),
            ),
          ([b, other, t0, routes, all]) => replayBans(run(all), b.spec, claims.composite ? other : undefined, b.banMs, t0, b.history, routes),
        ),
      // One call at a time: a release made before its acquire was answered releases nothing the process holds yet.
      leases: () => fc.asyncProperty(fc.tuple(leaseHistories, startInstant), ([l, t0]) => replayLeases(run(false), l.spec, t0, l.history)),
    };
    return properties[kind]() as unknown as fc.IAsyncProperty<[unknown]>;
  }

  const clause = (title: string, kind: HistoryKind, algorithm: RateAlgorithm = 'token-bucket'): Check => ({
    ...check(`differential: ${title}`, async (c) => {
      await fc.assert(property(kind, algorithm, await options.store(), c.fresh), { numRuns: runs, ...SEED });
    }),
    timeoutMs,
  });

  const checks: Check[] = RATE_ALGORITHMS.map((a) => clause(`${a} decides as the reference model`, 'rates', a));
  if (claims.composite) checks.push(clause('composites decide as the reference model, all or nothing', 'composites'));
  if (claims.reserve) {
    for (const a of RATE_ALGORITHMS) checks.push(clause(`${a} books and cancels as the reference model, between consumes, resets and refunds`, 'bookings', a));
    if (claims.composite) checks.push(clause('composites book and cancel as the reference model, every member or none', 'composite-bookings'));
  }
  if (claims.bans) {
    for (const a of RATE_ALGORITHMS)
      checks.push(clause(`bans on ${a} decide as the reference model${claims.composite ? ', beside a composite of the banned limiter' : ''}`, 'bans', a));
  }
  if (claims.concurrency) checks.push(clause('concurrency leases are taken and released as on the reference model', 'leases'));
  for (const m of options.mutants ?? []) {
    checks.push({
      ...check(`differential: catches ${m.what} (mutant ${m.mutant})`, async (c) => {
        const store = await options.store(m.mutant);
        const caught = await fc.assert(property(m.history, m.algorithm ?? 'token-bucket', store, c.fresh), { numRuns: MUTANT_RUNS, endOnFailure: true }).then(
          () => false,
          () => true,
        );
        if (!caught) throw new Error(`the mutant ${m.mutant} decided as the reference model on ${MUTANT_RUNS} ${m.history} histories`);
      }),
      timeoutMs,
    });
  }
  return checks;
}
