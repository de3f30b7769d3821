/**
 * reserve and wait, for every algorithm, when the store claims them (Store.reserveAll), with nothing
 * depending on the exact instant: a free key books at once; a cost above the limit or a wait beyond
 * maxWaitMs is refused and records nothing; a spent key books no earlier than its denial's wait (never
 * early, within a minute's slack for a server's clock) and later bookings queue behind it; a cancel
 * before the instant gives back what the booking took, once; wait resolves, or rejects 'too-long' and
 * 'never'. A composite books all members or none. Unclaimed, reserve is refused by name.
 */
import { CompositeLimiter, type Mode, type RateLimiter, type Reservation, WaitError, reserve, wait } from '@ratekeeper/core';
import { expect } from 'vitest';
import { ALGORITHMS, type AlgorithmCase, limiterOf } from './algorithms.js';
import { type Check, answered, check, decided, refused } from '../check.js';
import { REFUSAL } from '../options.js';
import { consumeN } from './rate-checks.js';

const L = 5;
const SLACK_MS = 60_000;
const book = (l: RateLimiter<Mode>, key: string, cost = 1, maxWaitMs?: number): Promise<Reservation<Mode>> =>
  answered(() => reserve(l, key, cost, maxWaitMs === undefined ? {} : { maxWaitMs }) as Reservation<Mode> | Promise<Reservation<Mode>>);

async function heldBy(l: RateLimiter<Mode>, key: string, what: string): Promise<number> {
  const d = decided(await answered(() => l.peek(key)), what);
  return d.allowed ? L - d.remaining - 1 : L - d.remaining;
}

async function waitError(call: () => Promise<unknown>, what: string): Promise<string> {
  try {
    await call();
  } catch (error) {
    expect(error, `${what}: rejects with a WaitError`).toBeInstanceOf(WaitError);
    return (error as WaitError).reason;
  }
  throw new Error(`${what}: wait resolved; it must reject`);
}

function checksFor(a: AlgorithmCase): Check[] {
  const t = (clause: string) => `${a.algorithm}: ${clause}`;
  return [
    check(t('reserve books a free key at once and refuses, recording nothing, what never fits or waits too long'), async (c) => {
      const l = limiterOf(a, c, L);
      const r = await book(l, 'k');
      expect([r.ok, r.delayMs, r.decision.allowed], 'a free key: ok, at once, allowed').toEqual([true, 0, true]);
      expect(await heldBy(l, 'k', 'after one booking'), 'the booking recorded its cost').toBe(1);
      const never = await book(l, 'k', L + 1);
      expect([never.ok, never.delayMs], `reserve(${L + 1}): refused, Infinity`).toEqual([false, Infinity]);
      expect(never.decision.retryAfterMs, `reserve(${L + 1}): never satisfiable`).toBe(Infinity);
      await consumeN(l, 'k', L - 1, L - 1, 'spend the rest');
      const tooLong = await book(l, 'k', 1, 1000);
      expect(tooLong.ok, 'a spent key with maxWaitMs 1000: refused').toBe(false);
      expect(tooLong.decision.retryAfterMs, 'refused for waiting too long: the wait it would need').toBeGreaterThan(1000);
      expect(await heldBy(l, 'k', 'after refusals'), 'refused bookings recorded nothing').toBe(L);
    }),
    check(t('reserve on a spent key is never early, queues in order, and cancel gives back once'), async (c) => {
      const l = limiterOf(a, c, L);
      await consumeN(l, 'k', L, L, 'spend');
      const denial = decided(await answered(() => l.peek('k')), 'peek on the spent key');
      const first = await book(l, 'k');
      expect(first.ok, 'an unbounded booking on a spent key').toBe(true);
      expect(first.delayMs, `never early: the booking waits at least the denial's ${denial.retryAfterMs} ms (less ${SLACK_MS} ms slack)`).toBeGreaterThan(
        denial.retryAfterMs - SLACK_MS,
      );
      const second = await book(l, 'k');
      expect(second.ok, 'a second booking').toBe(true);
      expect(second.at, 'first come, first served: the second goes no earlier than the first').toBeGreaterThanOrEqual(first.at - 1000);
      expect(await answered(() => second.cancel()), 'cancel before the instant').toBe(true);
      expect(await answered(() => second.cancel()), 'a second cancel').toBe(false);
      const again = await book(l, 'k');
      expect(again.ok, 'a booking after the cancel').toBe(true);
      expect(Math.abs(again.at - second.at), 'the cancelled booking gave its place back: the next one books where it was').toBeLessThan(SLACK_MS);
    }),
    check(t('wait resolves on a free key and rejects too-long and never at once'), async (c) => {
      const l = limiterOf(a, c, L);
      const d = decided(await wait(l, 'k'), 'wait on a free key');
      expect(d.allowed, 'wait on a free key resolves allowed').toBe(true);
      expect(await waitError(() => wait(l, 'k', L + 1), `wait(${L + 1})`), `wait(${L + 1})`).toBe('never');
      await consumeN(l, 'k', L - 1, L - 1, 'spend the rest');
      expect(await waitError(() => wait(l, 'k', 1, { maxWaitMs: 0 }), 'wait on a spent key, maxWaitMs 0'), 'wait on a spent key, maxWaitMs 0').toBe('too-long');
      expect(await heldBy(l, 'k', 'after refused waits'), 'refused waits recorded nothing').toBe(L);
    }),
  ];
}

export function reserveChecks(composite: boolean): Check[] {
  const checks = ALGORITHMS.flatMap(checksFor);
  if (composite) {
    checks.push(
      check('reserve on a composite books every member or none', async (c) => {
        const a = ALGORITHMS[3] as AlgorithmCase;
        const big = limiterOf(a, c, L);
        const small = limiterOf(a, c, 2);
        const both = new CompositeLimiter<Mode>([big, small]);
        for (let i = 0; i < 2; i++) expect((await book(both, 'k')).ok, `booking ${i + 1}`).toBe(true);
        expect((await book(both, 'k', 1, 1000)).ok, 'booking 3, the small member spent, maxWaitMs 1000').toBe(false);
        expect(await heldBy(big, 'k', 'the big member'), 'the big member holds the 2 bookings only').toBe(2);
      }),
    );
  }
  return checks;
}

export function reserveRefusals(): Check[] {
  return [
    check('reserve unclaimed: reserve and wait are refused by name', async (c) => {
      const l = limiterOf(ALGORITHMS[0] as AlgorithmCase, c, L);
      await refused(() => book(l, 'k'), REFUSAL.reserve, 'reserve on a store that does not claim reserveAll');
      await refused(() => wait(l, 'k'), REFUSAL.reserve, 'wait on a store that does not claim reserveAll');
    }),
  ];
}
