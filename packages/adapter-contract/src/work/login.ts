/**
 * The login recipe over real HTTP, on the memory store and on Redis: the root README's BanLimiter over
 * 5 failed logins per 15 minutes (sliding window), `countOutcome: o => o.status >= 400`, banned for an
 * hour. Six logins in flight together are each charged before their outcome is known, so the sixth is
 * denied and starts the ban; when all six succeed, the refunds of the five lift it, and the next login
 * is admitted (no ban without counted failures). Six that fail ban for the whole hour, with a
 * Retry-After that counts down exactly. The stores whose bans outlive the refunds (mutants, the
 * behaviour before) must be caught by the same check. The route answers `?status=N`: 200 is a
 * successful login, 401 a failed one.
 */
import { BanLimiter, ManualClock, type RateLimiter, SlidingWindowLimiter, type Store } from '@ratekeeper/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { Driver, Served } from '../driver.js';
import { MemoryBansOutliveRefunds, RedisBansOutliveRefunds } from '../mutants/ban-outlives-refund.js';
import { STORES, type StoreName, runsOn, stopRedis, storeOn } from '../redis.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % (15 * MIN));

/** until lets the event loop run (real I/O, Redis included) until `done()` holds, or throws after five seconds. */
export async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * inFlight answers the first `n` consumes only once all n are charged: n logins whose handlers all run
 * at once (a password check takes time). Refunds go through and are counted once done.
 */
function inFlight(inner: RateLimiter, n: number): { limiter: RateLimiter<'async'>; refunds: () => number } {
  let charged = 0;
  let open: () => void = () => {};
  const all = new Promise<void>((resolve) => (open = resolve));
  let refunds = 0;
  const limiter: RateLimiter<'async'> = {
    mode: 'async',
    policies: inner.policies,
    async consume(key, cost) {
      const decision = inner.consume(key, cost);
      if (++charged === n) open();
      await all;
      return decision;
    },
    peek: async (key, cost) => inner.peek(key, cost),
    allow: async (key, cost) => inner.allow(key, cost),
    reset: async (key) => inner.reset(key),
    async refund(key, cost) {
      await (inner.refund as NonNullable<RateLimiter['refund']>).call(inner, key, cost);
      refunds++;
    },
  };
  return { limiter, refunds: () => refunds };
}

/** recipe serves the README's login limit on `store`, six logins in flight at once, keyed by one user. */
function recipe<F>(driver: Driver<F>, store: Store) {
  const clock = new ManualClock(T0);
  const ban = new BanLimiter({ limiter: new SlidingWindowLimiter({ limit: 5, windowMs: 15 * MIN, name: 'login', clock, store }) as never, banMs: HOUR });
  const { limiter, refunds } = inFlight(ban as RateLimiter, 6);
  let outcomes = 0;
  const served: Served = driver.serve({ limiter, key: () => 'user:alice', countOutcome: ({ status }) => (outcomes++, status >= 400) });
  const login = (status: number) => served.http.get(`/?status=${status}`);
  return { clock, login, refunds, outcomes: () => outcomes };
}

/** successfulLoginsNotBanned sends six successful logins at once, then one more, which must be admitted. */
export async function successfulLoginsNotBanned<F>(driver: Driver<F>, store: Store): Promise<void> {
  const { login, refunds } = recipe(driver, store);
  const six = await Promise.all(Array.from({ length: 6 }, () => login(200)));
  expect(six.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429]); // charged before their outcome
  await until(() => refunds() === 5, 'the five successes to be refunded');
  const next = await login(200);
  if (next.status !== 200) throw new Error(`the next login was answered ${next.status} with Retry-After ${next.headers['retry-after']}: banned without a failure`);
}

/** failedLoginsBanned sends six failed logins at once: banned for the hour, Retry-After exact throughout. */
async function failedLoginsBanned<F>(driver: Driver<F>, store: Store): Promise<void> {
  const { clock, login, outcomes } = recipe(driver, store);
  const six = await Promise.all(Array.from({ length: 6 }, () => login(401)));
  expect(six.map((r) => [r.status, r.headers['retry-after']]).sort()).toEqual([...Array(5).fill([401, undefined]), [429, '3600']]);
  await until(() => outcomes() === 5, 'the five failures to be counted');
  const banned = await login(200);
  expect([banned.status, banned.headers['retry-after']]).toEqual([429, '3600']);
  clock.advance(30 * MIN);
  const later = await login(200);
  expect([later.status, later.headers['retry-after'], later.headers['ratelimit']]).toEqual([429, '1800', '"login";r=0;t=1800']);
  clock.advance(30 * MIN);
  expect((await login(200)).status).toBe(200);
}

export function loginSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    for (const where of STORES) {
      describe.runIf(runsOn(where))(`${driver.name} on ${where}: the login recipe`, () => {
        afterAll(stopRedis);
        const made = (name: StoreName, mutant = false) => storeOn(name, mutant ? MemoryBansOutliveRefunds : undefined, mutant ? RedisBansOutliveRefunds : undefined);

        it('six logins in flight together that all succeed leave no ban: the next login is admitted', async () => {
          const { store, failures } = await made(where);
          await successfulLoginsNotBanned(driver, store);
          expect(failures).toEqual([]);
        });

        it('the same check catches bans that outlive the refunds of their charges (mutant)', async () => {
          const { store } = await made(where, true);
          await expect(successfulLoginsNotBanned(driver, store)).rejects.toThrow(/^the next login was answered 429 with Retry-After 3600/);
        });

        it('six failed logins ban for the whole hour, with a Retry-After that is exact throughout', async () => {
          const { store, failures } = await made(where);
          await failedLoginsBanned(driver, store);
          expect(failures).toEqual([]);
        });
      });
    }
  }
}
