/**
 * Bans (BanLimiter over the store's `banned`), for every algorithm, when the store claims them: the
 * first curable denial bans the key for banMs, and while banned every request is denied with the ban's
 * time left, changing nothing; peek records nothing and reports a ban as consume would; a cost above
 * the limit starts none; reset lifts it.
 * banMs (a week) is far longer than any algorithm's own wait (a day at most), so the two are told apart
 * without exact instants. Unclaimed, BanLimiter is refused at construction with a message naming bans.
 */
import { BanLimiter, type Mode } from '@ratekeeper/core';
import { expect } from 'vitest';
import { ALGORITHMS, type AlgorithmCase, DAY, limiterOf } from './algorithms.js';
import { type Check, answered, check, decided, refused } from '../check.js';
import { REFUSAL } from '../options.js';
import { consumeN, expectDenied } from './rate-checks.js';

const L = 2;
const BAN_MS = 7 * DAY;
const SLACK_MS = 60_000;

function checksFor(a: AlgorithmCase): Check[] {
  const t = (clause: string) => `${a.algorithm}: ban ${clause}`;
  return [
    check(t('starts at the first denial, denies for banMs changing nothing, and reset lifts it'), async (c) => {
      const l = new BanLimiter<Mode>({ limiter: limiterOf(a, c, L), banMs: BAN_MS });
      await consumeN(l, 'k', L, L, 'before the ban');
      const first = decided(await answered(() => l.consume('k')), 'the first denial');
      expectDenied(first, L, 'the first denial');
      expect(first.retryAfterMs, 'the first denial is the ban: retryAfterMs is banMs').toBeGreaterThan(BAN_MS - SLACK_MS);
      expect(first.retryAfterMs, 'retryAfterMs is at most banMs').toBeLessThanOrEqual(BAN_MS);
      const again = decided(await answered(() => l.consume('k')), 'denied while banned');
      expectDenied(again, L, 'while banned');
      expect(again.retryAfterMs, 'a denial while banned does not extend the ban').toBeLessThanOrEqual(first.retryAfterMs);
      expect(again.retryAfterMs, 'while banned: the ban time left').toBeGreaterThan(BAN_MS - SLACK_MS);
      await answered(() => l.reset('k'));
      await consumeN(l, 'k', L, L, 'reset lifts the ban and empties the key');
    }),
    check(t('is not started by a cost above the limit; peek records nothing and reports the ban'), async (c) => {
      const l = new BanLimiter<Mode>({ limiter: limiterOf(a, c, L), banMs: BAN_MS });
      const never = decided(await answered(() => l.consume('k', L + 1)), `consume(${L + 1})`);
      expect([never.allowed, never.retryAfterMs], `consume(${L + 1}): denied for ever, no ban`).toEqual([false, Infinity]);
      await consumeN(l, 'k', L, L, `after consume(${L + 1}): no ban`);
      for (let i = 0; i < 2; i++) await answered(() => l.peek('k'));
      const d = decided(await answered(() => l.consume('k')), 'consume on the spent key');
      expect(d.retryAfterMs, 'the consume on the spent key starts the ban').toBeGreaterThan(BAN_MS - SLACK_MS);
      const p = decided(await answered(() => l.peek('k')), 'peek while banned');
      expect([p.allowed, p.remaining], 'peek while banned: denied').toEqual([false, 0]);
      expect(p.retryAfterMs, 'peek while banned reports what consume would: the ban').toBeGreaterThan(BAN_MS - SLACK_MS);
      const m = new BanLimiter<Mode>({ limiter: limiterOf(a, c, L), banMs: BAN_MS });
      for (let i = 0; i < 2 * L; i++) await answered(() => m.peek('k'));
      await consumeN(m, 'k', L, L, 'peeks on a free key recorded nothing');
    }),
  ];
}

export function banChecks(): Check[] {
  return ALGORITHMS.flatMap(checksFor);
}

export function banRefusals(): Check[] {
  return [
    check('bans unclaimed: BanLimiter is refused at construction by name', async (c) => {
      await refused(
        () => new BanLimiter<Mode>({ limiter: limiterOf(ALGORITHMS[3] as AlgorithmCase, c, L), banMs: BAN_MS }),
        REFUSAL.bans,
        'a BanLimiter on a store that does not claim bans',
      );
    }),
  ];
}
