/**
 * The suite catches broken stores: each flaw of ./support/wrapped.ts breaks one clause, and running the
 * suite's checks as plain functions on it, that clause rejects with a message naming the broken
 * contract, sync and async, while the same checks pass on the store without the flaw. The differential
 * replays on the flawed store itself (it decides at the limiters' clock) and the burst runs in this
 * process (./support/burst.ts). Claims are checked both ways: a capability claimed but missing fails
 * its checks, and one offered but not claimed fails its refusal check. A store's own mutants are
 * clauses too, which fail when the mutant goes uncaught.
 */
import { type Mode, systemClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { type Check, RATE_ALGORITHMS, type StoreContractOptions, contextFor, storeChecks } from '../src/index.js';
import { inProcessBurst } from './support/burst.js';
import { type Flaw, wrapped } from './support/wrapped.js';

/** optionsFor: the options of a store with `flaw` (the differential and the burst on that same flawed store). */
function optionsFor(mode: Mode, flaw?: Flaw, more: Partial<StoreContractOptions<Flaw, Flaw>> = {}): StoreContractOptions<Flaw, Flaw> {
  return {
    differential: { store: (mutant) => wrapped(mode, mutant ?? flaw), runs: 30 },
    burst: { workers: 4, requests: 300, runs: 1, run: (burst, mutant) => inProcessBurst(wrapped(mode, mutant ?? flaw), burst) },
    ...more,
  };
}

/** failing runs every check on `store` and answers the titles of those that rejected (with their messages checked). */
async function failing(store: ReturnType<typeof wrapped>, options: StoreContractOptions<Flaw, Flaw>): Promise<string[]> {
  const failed: string[] = [];
  for (const c of storeChecks(options) as Check[]) {
    try {
      await c.run(contextFor(store, systemClock));
    } catch (error) {
      expect((error as Error).message.startsWith(`store contract broken: ${c.title}\n`), `the failure of "${c.title}" names its contract`).toBe(true);
      failed.push(c.title);
    }
  }
  return failed;
}

const CAUGHT: readonly [Flaw, RegExp][] = [
  ['peek-records', /: peek records nothing$/],
  ['commit-on-denial', /composite is all or nothing/],
  ['keys-trimmed', /keys are independent$/],
  ['keys-truncated', /hostile keys are kept apart/],
  ['keys-utf8', /hostile keys are kept apart/],
  ['reset-ignored', /reset empties the key$/],
  ['ban-ignored', /ban starts at the first denial/],
  ['refund-uncapped', /refund gives units back$/],
  ['charge-capped', /charge adds past the limit/],
  ['block-ignored', /block bans for its duration/],
  // Caught by the differential alone: every other clause takes the rounded wait, and a kept ban, as honest.
  ['waits-rounded', /^differential: [a-z-]+ decides as the reference model$/],
  ['ban-refund-kept', /^differential: bans on [a-z-]+ decide as the reference model/],
  ['reserve-early', /reserve on a spent key is never early/],
  ['reserve-early', /^differential: [a-z-]+ books and cancels as the reference model/],
  ['release-ignored', /^concurrency: acquire admits exactly the limit; release gives one back/],
  ['release-ignored', /^differential: concurrency leases are taken and released as on the reference model$/],
];
/** Flaws only one mode can have: a race needs promises; a mode lie needs the claim of 'sync'. */
const ONE_MODE: readonly [Flaw, 'sync' | 'async', RegExp][] = [
  ['racy', 'async', /calls in flight together admit exactly the limit$/],
  ['racy', 'async', /^burst: fixed-window admits exactly 500 of 4 workers × 300 requests in flight on one key/],
  ['sync-promises', 'sync', /the store answers in its declared mode$/],
];

describe('the suite catches each broken store, by the contract it breaks', () => {
  for (const mode of ['sync', 'async'] as const) {
    it(`passes the unbroken store (${mode})`, async () => {
      expect(await failing(wrapped(mode), optionsFor(mode))).toEqual([]);
    });
    for (const [flaw, clause] of CAUGHT) {
      it(`${flaw} (${mode}): ${clause.source}`, async () => {
        const failed = await failing(wrapped(mode, flaw), optionsFor(mode, flaw));
        expect(failed.filter((t) => clause.test(t)).length, `${flaw}: expected a failure matching ${clause}, got ${JSON.stringify(failed)}`).toBeGreaterThan(0);
      });
    }
  }
});

describe('the suite catches the flaws of one mode', () => {
  for (const [flaw, mode, clause] of ONE_MODE) {
    it(`${flaw} (${mode}): ${clause.source}`, async () => {
      const failed = await failing(wrapped(mode, flaw), optionsFor(mode, flaw));
      expect(failed.filter((t) => clause.test(t)).length, `${flaw}: expected a failure matching ${clause}, got ${JSON.stringify(failed)}`).toBeGreaterThan(0);
    });
  }
});

describe("a store's own mutants are clauses that fail when the mutant goes uncaught", () => {
  it('the differential: a mutant that decides as the reference model fails its clause, a real one passes it', async () => {
    const options = optionsFor('async', undefined, {
      differential: {
        store: (mutant) => wrapped('async', mutant),
        runs: 10,
        mutants: [
          { what: 'rounded waits', mutant: 'waits-rounded', history: 'rates' },
          { what: 'nothing at all', mutant: 'keys-trimmed', history: 'rates', algorithm: 'sliding-log' },
        ],
      },
    });
    const failed = await failing(wrapped('async'), options);
    expect(failed).toEqual(['differential: catches nothing at all (mutant keys-trimmed)']);
  });
  it('the burst: a mutant that admits exactly the limit fails its clause, a racy one passes it', async () => {
    const options = optionsFor('async', undefined, {
      burst: {
        workers: 4,
        requests: 300,
        runs: 1,
        mutants: [
          ['a read and a write apart', 'racy'],
          ['nothing at all', 'peek-records'],
        ],
        run: (burst, mutant) => inProcessBurst(wrapped('async', mutant), burst),
      },
    });
    const failed = await failing(wrapped('async'), options);
    expect(failed).toEqual(['burst: catches nothing at all (mutant peek-records) over-admitting within 3 bursts']);
  });
});

describe('claims are checked both ways', () => {
  it('a composite claimed without consumeAll fails the composite clauses', async () => {
    const failed = await failing(wrapped('async', 'no-consume-all'), optionsFor('async', 'no-consume-all'));
    expect(failed.some((t) => /composite is all or nothing/.test(t))).toBe(true);
  });
  it('a capability offered but not claimed fails its refusal check', async () => {
    for (const capability of ['composite', 'refund', 'reserve', 'bans', 'concurrency', 'charge', 'block'] as const) {
      const failed = await failing(wrapped('sync'), optionsFor('sync', undefined, { capabilities: { [capability]: false } }));
      expect(failed, capability).toEqual([expect.stringMatching(new RegExp(`^${capability} unclaimed`))]);
    }
  });
  it('refuses an unknown capability by name', () => {
    expect(() => storeChecks(optionsFor('sync', undefined, { capabilities: { leases: true } as never }))).toThrow(/unknown capability "leases"/);
  });
  it('a differential or a burst the store cannot run is a skipped clause naming why, never a pass', () => {
    const checks = storeChecks({ differential: { skip: 'the reference model itself' }, burst: { skip: 'one process' } });
    expect(checks.filter((c) => c.skipped !== undefined).map((c) => [c.title, c.skipped])).toEqual([
      ['a block and a charge through one store instance are seen through another on the same backend', 'the store gave no second instance (option `another`)'],
      ['differential against the reference model', 'the reference model itself'],
      ['burst: exactly the limit from several processes on one key', 'one process'],
    ]);
  });
});

describe('a block and a charge are seen across instances', () => {
  it('fails when `another` makes a store of its own (the memory store keeps each binding apart, so it gives none)', async () => {
    const apart = await failing(wrapped('async'), optionsFor('async', undefined, { another: () => wrapped('async') }));
    expect(apart).toHaveLength(RATE_ALGORITHMS.length); // one clause per rate algorithm
    expect(apart.every((t) => /seen through another on the same backend$/.test(t))).toBe(true);
  });
});
