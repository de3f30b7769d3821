/**
 * The suite catches broken stores: each flaw of ./support/wrapped.ts breaks one clause, and running the
 * suite's checks as plain functions on it, that clause rejects with a message naming the broken
 * contract, sync and async, while the same checks pass on the store without the flaw. Claims are
 * checked both ways: a capability claimed but missing fails its checks, and one offered but not
 * claimed fails its refusal check.
 */
import { systemClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { type Check, type StoreContractOptions, contextFor, storeChecks } from '../src/index.js';
import { type Flaw, wrapped } from './support/wrapped.js';

/** failing runs every check on `store` and answers the titles of those that rejected (with their messages checked). */
async function failing(store: ReturnType<typeof wrapped>, options: StoreContractOptions = {}): Promise<string[]> {
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
];
/** Flaws only one mode can have: a race needs promises; a mode lie needs the claim of 'sync'. */
const ONE_MODE: readonly [Flaw, 'sync' | 'async', RegExp][] = [
  ['racy', 'async', /calls in flight together admit exactly the limit$/],
  ['sync-promises', 'sync', /the store answers in its declared mode$/],
];

describe('the suite catches each broken store, by the contract it breaks', () => {
  for (const mode of ['sync', 'async'] as const) {
    it(`passes the unbroken store (${mode})`, async () => {
      expect(await failing(wrapped(mode))).toEqual([]);
    });
    for (const [flaw, clause] of CAUGHT) {
      it(`${flaw} (${mode})`, async () => {
        const failed = await failing(wrapped(mode, flaw));
        expect(failed.filter((t) => clause.test(t)).length, `${flaw}: expected a failure matching ${clause}, got ${JSON.stringify(failed)}`).toBeGreaterThan(0);
      });
    }
  }
});

describe('the suite catches the flaws of one mode', () => {
  for (const [flaw, mode, clause] of ONE_MODE) {
    it(`${flaw} (${mode})`, async () => {
      const failed = await failing(wrapped(mode, flaw));
      expect(failed.filter((t) => clause.test(t)).length, `${flaw}: expected a failure matching ${clause}, got ${JSON.stringify(failed)}`).toBeGreaterThan(0);
    });
  }
});

describe('claims are checked both ways', () => {
  it('a composite claimed without consumeAll fails the composite clauses', async () => {
    const failed = await failing(wrapped('async', 'no-consume-all'));
    expect(failed.some((t) => /composite is all or nothing/.test(t))).toBe(true);
  });
  it('a capability offered but not claimed fails its refusal check', async () => {
    for (const capability of ['composite', 'refund', 'reserve', 'bans', 'concurrency'] as const) {
      const failed = await failing(wrapped('sync'), { capabilities: { [capability]: false } });
      expect(failed, capability).toEqual([expect.stringMatching(new RegExp(`^${capability} unclaimed`))]);
    }
  });
  it('refuses an unknown capability by name', () => {
    expect(() => storeChecks({ capabilities: { leases: true } as never })).toThrow(/unknown capability "leases"/);
  });
});
