/**
 * refund, for every algorithm, when the store claims it: units come back (a refunded key admits them
 * again), never beyond the key's empty state (a refund of more than was spent leaves exactly `limit`).
 * Unclaimed, a limiter's refund is refused with a TypeError naming refund.
 */
import type { Mode, RateLimiter } from '@ratekeeper/core';
import { expect } from 'vitest';
import { ALGORITHMS, type AlgorithmCase, limiterOf } from './algorithms.js';
import { type Check, answered, check, decided, refused } from '../check.js';
import { REFUSAL } from '../options.js';
import { consumeN, expectDenied } from './rate-checks.js';

const L = 5;
const refund = (l: RateLimiter<Mode>, key: string, cost: number) => answered(() => (l.refund as NonNullable<RateLimiter<Mode>['refund']>).call(l, key, cost));

function checksFor(a: AlgorithmCase): Check[] {
  const t = (clause: string) => `${a.algorithm}: ${clause}`;
  return [
    check(t('refund gives units back'), async (c) => {
      const l = limiterOf(a, c, L);
      await consumeN(l, 'k', 3, L, 'spend 3');
      await refund(l, 'k', 2);
      const d = decided(await answered(() => l.consume('k')), 'consume after refund(2)');
      expect([d.allowed, d.remaining], 'spent 3, refunded 2, spent 1: remaining').toEqual([true, L - 2]);
      await consumeN(l, 'k', L - 2, L - 2, 'the rest');
      expectDenied(await answered(() => l.consume('k')), L, 'then spent');
      await refund(l, 'k', 1);
      await consumeN(l, 'k', 1, 1, 'a spent key refunded 1');
    }),
    check(t('refund never goes beyond the empty state'), async (c) => {
      const l = limiterOf(a, c, L);
      await refund(l, 'unused', 3);
      await consumeN(l, 'unused', L, L, 'an unused key refunded 3 admits exactly the limit');
      expectDenied(await answered(() => l.consume('unused')), L, 'an unused key refunded 3, one past the limit');
      await consumeN(l, 'k', 1, L, 'spend 1');
      await refund(l, 'k', L + 3);
      await consumeN(l, 'k', L, L, `spent 1, refunded ${L + 3}: exactly the limit`);
      expectDenied(await answered(() => l.consume('k')), L, 'one past the limit after an over-refund');
    }),
  ];
}

export function refundChecks(): Check[] {
  return ALGORITHMS.flatMap(checksFor);
}

export function refundRefusals(): Check[] {
  return [
    check('refund unclaimed: a limiter refund is refused by name', async (c) => {
      const l = limiterOf(ALGORITHMS[0] as AlgorithmCase, c, L);
      await refused(() => refund(l, 'k', 1), REFUSAL.refund, 'refund on a store that does not claim it');
    }),
  ];
}
