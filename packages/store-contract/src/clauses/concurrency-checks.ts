/**
 * Concurrency leases (ConcurrencyLimiter), when the store claims them: acquire admits exactly `limit`
 * leases (also when the calls are in flight together) and then denies with retryAfterMs the option's
 * hint; release gives one back, never below zero; peek takes none; reset empties; a cost above the
 * limit is denied for ever. With composites, a lease
 * beside a rate limit is taken all or nothing. Unclaimed, ConcurrencyLimiter is refused at construction
 * with a message naming leases.
 */
import { CompositeLimiter, ConcurrencyLimiter, type Mode, type RateLimiter } from '@ratekeeper/core';
import { expect } from 'vitest';
import { ALGORITHMS, type AlgorithmCase, limiterOf } from './algorithms.js';
import { type Check, type CheckContext, answered, check, decided, refused } from '../check.js';
import { REFUSAL } from '../options.js';
import { consumeN } from './rate-checks.js';

const L = 2;
const HINT_MS = 1000;
const leases = (c: CheckContext) => new ConcurrencyLimiter<Mode>({ limit: L, store: c.store, clock: c.clock, name: c.fresh() });
const release = (l: RateLimiter<Mode>, key: string, cost = 1) => answered(() => (l.release as NonNullable<RateLimiter<Mode>['release']>).call(l, key, cost));

async function expectFull(l: RateLimiter<Mode>, key: string, what: string): Promise<void> {
  const d = decided(await answered(() => l.consume(key)), what);
  expect([d.allowed, d.remaining, d.retryAfterMs], `${what}: denied, none left, the hint as the wait`).toEqual([false, 0, HINT_MS]);
}

export function concurrencyChecks(composite: boolean): Check[] {
  const checks = [
    check('concurrency: acquire admits exactly the limit; release gives one back; peek takes none', async (c) => {
      const l = leases(c);
      for (let i = 0; i < 3; i++) expect(decided(await answered(() => l.peek('k')), 'peek').allowed, `peek ${i + 1}`).toBe(true);
      await consumeN(l, 'k', L, L, 'acquire');
      await expectFull(l, 'k', `acquire ${L + 1}`);
      await release(l, 'k');
      await consumeN(l, 'k', 1, 1, 'acquire after a release');
      await expectFull(l, 'k', 'then full again');
      await answered(() => l.reset('k'));
      await consumeN(l, 'k', L, L, 'after reset');
    }),
    check('concurrency: acquires in flight together take exactly the limit', async (c) => {
      const l = leases(c);
      const all = await Promise.all(Array.from({ length: 20 }, () => answered(() => l.consume('k'))));
      for (const d of all) decided(d, 'an acquire in flight with others');
      expect(all.filter((d) => d.allowed).length, `20 acquires in flight at once, limit ${L}`).toBe(L);
    }),
    check('concurrency: release never goes below zero; a cost above the limit is denied for ever', async (c) => {
      const l = leases(c);
      for (let i = 0; i < 3; i++) await release(l, 'k');
      await consumeN(l, 'k', L, L, 'acquire after 3 releases of nothing');
      await expectFull(l, 'k', `acquire ${L + 1} after releases of nothing`);
      const never = decided(await answered(() => l.consume('other', L + 1)), `acquire(${L + 1})`);
      expect([never.allowed, never.retryAfterMs], `acquire(${L + 1})`).toEqual([false, Infinity]);
      await consumeN(l, 'other', L, L, `after acquire(${L + 1}): nothing taken`);
    }),
  ];
  if (composite) {
    checks.push(
      check('concurrency: a lease beside a rate limit is taken all or nothing', async (c) => {
        const lease = leases(c);
        const rate = limiterOf(ALGORITHMS[3] as AlgorithmCase, c, 1);
        const both = new CompositeLimiter<Mode>([lease, rate]);
        expect(decided(await answered(() => both.consume('k')), 'first').allowed, 'first request').toBe(true);
        for (let i = 0; i < 3; i++) expect(decided(await answered(() => both.consume('k')), 'denied').allowed, `request ${i + 2}: the rate denies`).toBe(false);
        const p = decided(await answered(() => lease.peek('k')), 'the lease member');
        expect([p.allowed, p.remaining], 'the lease member holds only the first lease: denials took none').toEqual([true, L - 2]);
        await release(both, 'k');
        await consumeN(lease, 'k', L, L, "the composite's release returned its lease");
      }),
    );
  }
  return checks;
}

export function concurrencyRefusals(): Check[] {
  return [
    check('concurrency unclaimed: ConcurrencyLimiter is refused at construction by name', async (c) => {
      await refused(() => leases(c), REFUSAL.concurrency, 'a ConcurrencyLimiter on a store that does not claim leases');
    }),
  ];
}
