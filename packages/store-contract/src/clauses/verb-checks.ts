/**
 * rate-limiter-flexible's verbs, for every algorithm, when the store claims them:
 * - `charge` (its `penalty`) always adds its units, past the limit too (a sliding log saturates at
 *   it), and a key charged past its limit is denied; `usage` (its `get`) reads what the key holds —
 *   used, remaining, resetAfterMs — deciding and recording nothing; reset empties it;
 * - `block` (its `block`, on a BanLimiter) bans a key for a duration: decisions are denied with the
 *   time left, usage reports it as blockedMs, a shorter block never shortens it, no refund lifts it,
 *   reset does; and a block or a charge made through one instance of the store is seen through
 *   another on the same backend (the suite's `another` option).
 * Unclaimed, a limiter's `charge` and a BanLimiter's `block` are refused by name.
 */
import { BanLimiter, type Mode, type RateLimiter, type Store, type Usage } from '@ratekeeper/core';
import { expect } from 'vitest';
import { ALGORITHMS, type AlgorithmCase, DAY, HOUR, limiterOf } from './algorithms.js';
import { type Check, type CheckContext, answered, check, decided, refused, skipped } from '../check.js';
import { consumeN, expectDenied } from './rate-checks.js';

const L = 2;
const BAN_MS = 7 * DAY;
const SLACK_MS = 60_000;

type Verbs = RateLimiter<Mode> & { charge(key: string, cost?: number): Promise<Usage> | Usage; usage(key: string): Promise<Usage> | Usage };

function expectUsage(u: Usage, used: number, what: string): void {
  expect([u.used, u.remaining, u.limit, u.blockedMs], `${what}: used, remaining, limit, blockedMs`).toEqual([used, Math.max(0, L - used), L, 0]);
  expect(u.resetAfterMs, `${what}: resetAfterMs`).toBeGreaterThanOrEqual(used > 0 ? 1 : 0);
  if (used === 0) expect(u.resetAfterMs, `${what}: an empty key has no reset`).toBe(0);
}

function chargeChecksFor(a: AlgorithmCase): Check[] {
  const t = (clause: string) => `${a.algorithm}: ${clause}`;
  return [
    check(t('charge adds past the limit, usage reads what the key holds without deciding, reset empties it'), async (c) => {
      const l = limiterOf(a, c, L) as Verbs;
      expectUsage(await answered(() => l.usage('k')), 0, 'usage of a fresh key');
      await consumeN(l, 'k', 1, L, 'one consume');
      for (let i = 0; i < 3; i++) await answered(() => l.peek('k'));
      expectUsage(await answered(() => l.usage('k')), 1, 'usage after one consume and three peeks');
      const denied = decided(await answered(() => l.consume('k', 2)), 'consume(2) with one left');
      expect(denied.allowed, 'consume(2) with one left is denied').toBe(false);
      expectUsage(await answered(() => l.usage('k')), 1, 'a denied consume recorded nothing');
      const saturates = a.algorithm === 'sliding-log';
      const charged = await answered(() => l.charge('k', 2));
      expect(charged.used, 'charge(2) with one left always adds (a sliding log saturates at its limit)').toBe(saturates ? L : 3);
      expect(charged.remaining, 'charged past the limit: nothing remains').toBe(0);
      expectDenied(decided(await answered(() => l.consume('k')), 'consume after the charge'), L, 'consume after the charge');
      expect((await answered(() => l.usage('k'))).used, 'usage after the charge').toBe(saturates ? L : 3);
      await answered(() => l.reset('k'));
      expectUsage(await answered(() => l.usage('k')), 0, 'usage after reset');
    }),
  ];
}

function blockChecksFor(a: AlgorithmCase): Check[] {
  const t = (clause: string) => `${a.algorithm}: block ${clause}`;
  return [
    check(t('bans for its duration, is never shortened, lifted by no refund, only by reset'), async (c) => {
      const l = new BanLimiter<Mode>({ limiter: limiterOf(a, c, L), banMs: BAN_MS });
      await consumeN(l, 'k', 1, L, 'one consume');
      await answered(() => l.block('k', HOUR));
      const d = decided(await answered(() => l.consume('k')), 'consume while blocked');
      expectDenied(d, L, 'consume while blocked');
      expect(d.retryAfterMs, 'retryAfterMs is the block time left').toBeGreaterThan(HOUR - SLACK_MS);
      expect(d.retryAfterMs, 'retryAfterMs is at most the block').toBeLessThanOrEqual(HOUR);
      const u = await answered(() => l.usage('k'));
      expect([u.used, u.remaining], 'usage while blocked: the count, nothing remaining').toEqual([1, 0]);
      expect(u.blockedMs, 'usage while blocked: blockedMs is the time left').toBeGreaterThan(HOUR - SLACK_MS);
      await answered(() => l.block('k', 1_000));
      await answered(() => l.refund('k', 1));
      const still = decided(await answered(() => l.peek('k')), 'peek after a shorter block and a refund');
      expect(still.retryAfterMs, 'a shorter block does not shorten it, a refund does not lift it').toBeGreaterThan(HOUR - SLACK_MS);
      await answered(() => l.reset('k'));
      await consumeN(l, 'k', L, L, 'reset lifts the block');
    }),
  ];
}

/** sharedChecks: a block and a charge through one store instance, seen through another on the same backend. */
const SHARED = 'a block and a charge through one store instance are seen through another on the same backend';

function sharedChecks(another: (store: Store) => Store | Promise<Store>): Check[] {
  return ALGORITHMS.map((a) =>
    check(`${a.algorithm}: ${SHARED}`, async (c) => {
      const [one, two] = [c.store, await another(c.store)];
      const name = c.fresh();
      const on = (store: CheckContext['store']) => new BanLimiter<Mode>({ limiter: a.make({ store, clock: c.clock, name }, L), banMs: BAN_MS });
      const [first, second] = [on(one), on(two)];
      await answered(() => first.charge('k', 1));
      expect((await answered(() => second.usage('k'))).used, 'a charge through one instance, read through the other').toBe(1);
      await answered(() => first.block('k', HOUR));
      const d = decided(await answered(() => second.consume('k')), 'consume through the other instance');
      expect(d.allowed, 'a block through one instance denies through the other').toBe(false);
      expect(d.retryAfterMs, 'with the block time left').toBeGreaterThan(HOUR - SLACK_MS);
      expect((await answered(() => second.usage('k'))).blockedMs, 'usage through the other instance').toBeGreaterThan(HOUR - SLACK_MS);
    }),
  );
}

export function chargeChecks(): Check[] {
  return ALGORITHMS.flatMap(chargeChecksFor);
}

export function chargeRefusals(): Check[] {
  return [
    check('charge unclaimed: a limiter refuses charge and usage by name', async (c) => {
      const l = limiterOf(ALGORITHMS[3] as AlgorithmCase, c, L) as Verbs;
      await refused(() => l.charge('k', 1), /charge/, 'charge on a store that does not claim it');
      await refused(() => l.usage('k'), /usage/, 'usage on a store that does not claim it');
    }),
  ];
}

/** blockChecks: per algorithm, then across instances when `another` makes a second store on the same backend (skipped, by name, otherwise). */
export function blockChecks(another: ((store: Store) => Store | Promise<Store>) | undefined): Check[] {
  const shared = another === undefined ? [skipped(SHARED, 'the store gave no second instance (option `another`)')] : sharedChecks(another);
  return [...ALGORITHMS.flatMap(blockChecksFor), ...shared];
}

export function blockRefusals(): Check[] {
  return [
    check('block unclaimed: BanLimiter refuses block by name', async (c) => {
      const l = new BanLimiter<Mode>({ limiter: limiterOf(ALGORITHMS[3] as AlgorithmCase, c, L), banMs: BAN_MS });
      await refused(() => l.block('k', HOUR), /block/, 'block on a store that does not claim it');
    }),
  ];
}
