/**
 * reserve and wait on MySqlStore, beyond the shared contract (store-contract.test.ts) and the
 * differential test (which holds every booking and cancel to the memory store's, one call at a time):
 *
 * - under concurrency, store-contract's bookingQueueChecks: four stores, each with its own pool,
 *   book 40 unit requests each on one key at once, for every algorithm, with default options: exactly
 *   the memory store's one-at-a-time queue, never beyond the limit;
 * - a cancel at or after the booked instant gives nothing back (the request may have gone): after it,
 *   exactly one of two consumes is admitted at a limit of 2;
 * - two cancels of one booking at once: exactly one succeeds, and exactly its one unit comes back;
 * - on the server's clock (default options): a spent key books at the next window and a cancel gives
 *   the place back;
 * - a booking the database cannot make is refused (`failed`, 'closed'), reported, never decided by
 *   the failure policy.
 *
 * Mutant builds (./support/mutant-builds.ts), each caught by the same check: a booking that ignores
 * the bookings ahead of it ('book-jumps-queue'), a cancel that gives back after the instant
 * ('cancel-after-instant'), and batches without row locks ('no-lock').
 */
import { FixedWindowLimiter, type Limiter, ManualClock, type Policy, type Reservation, reserve, wait } from '@ratekeeper/core';
import type mysql from 'mysql2/promise';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { bookingQueueChecks } from '@ratekeeper/store-contract';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';

const T0 = 1_700_000_000_000;

const TABLE = table('reserve');
const pools: mysql.Pool[] = Array.from({ length: 4 }, () => createPool(4));
let run = 0;

afterAll(async () => {
  await dropTable(pools[0] as mysql.Pool, TABLE).catch(() => undefined);
  for (const pool of pools) await pool.end();
});

type Store = typeof MySqlStore;

async function build(mutant?: MutantName): Promise<Store> {
  if (mutant === undefined) return MySqlStore;
  return ((await import(mutantBuild(mutant))) as { MySqlStore: Store }).MySqlStore;
}

function fixed(store: MySqlStore, clock: ManualClock, limit: number, windowMs: number): Limiter<Policy, 'async'> {
  return new FixedWindowLimiter<'async'>({ store, clock, limit, windowMs, name: `fixed${run++}` });
}

bookingQueueChecks({
  describe: describeMySql,
  stores: async (mutant) => {
    const Made = await build(mutant);
    return (index) => new Made({ client: pools[index] as mysql.Pool, table: TABLE, time: 'client' });
  },
  mutants: [
    ['a booking that ignores the bookings ahead of it', 'book-jumps-queue'],
    ['batches that read without row locks', 'no-lock'],
  ],
});

describeMySql('cancel', () => {
  /** afterInstant: a booking whose instant has come, cancelled then: how many of two consumes at that instant are admitted (limit 2). */
  async function afterInstant(Made: Store): Promise<number> {
    const clock = new ManualClock(T0);
    const limiter = fixed(new Made({ client: pools[0] as mysql.Pool, table: TABLE, time: 'client' }), clock, 2, 1000);
    for (let i = 0; i < 2; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    const r = await reserve(limiter, 'k');
    expect([r.ok, r.delayMs]).toEqual([true, 1000]);
    clock.set(T0 + 1000); // the instant has come: the request may have gone
    const cancelled = await r.cancel();
    const admitted = [await limiter.consume('k'), await limiter.consume('k')].filter((d) => d.allowed).length;
    expect(cancelled, 'a cancel at the instant').toBe(admitted === 2);
    return admitted;
  }

  it('gives nothing back at or after the booked instant: exactly one of two consumes is admitted there (limit 2)', async () => {
    expect(await afterInstant(MySqlStore)).toBe(1);
  });

  it('catches a cancel that gives back after the instant (mutant cancel-after-instant)', async () => {
    expect(await afterInstant(await build('cancel-after-instant'))).toBe(2);
  });

  it('two cancels of one booking at once: exactly one succeeds, and exactly its unit comes back', async () => {
    const clock = new ManualClock(T0);
    const limiter = fixed(new MySqlStore({ client: pools[0] as mysql.Pool, table: TABLE, time: 'client' }), clock, 3, 1000);
    for (let i = 0; i < 3; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    const booked = await Promise.all([reserve(limiter, 'k'), reserve(limiter, 'k'), reserve(limiter, 'k')]);
    expect(booked.map((r) => r.delayMs)).toEqual([1000, 1000, 1000]);
    const middle = booked[1] as Reservation<'async'>;
    expect((await Promise.all([middle.cancel(), middle.cancel()])).sort()).toEqual([false, true]);
    clock.set(T0 + 1000);
    const admitted = (await Promise.all([limiter.consume('k'), limiter.consume('k')])).filter((d) => d.allowed).length;
    expect(admitted, 'the two bookings left hold 2 of 3 at +1000 ms').toBe(1);
  });
});

describeMySql("on the server's clock (default options)", () => {
  it('books a spent key at the next window, and a cancel gives the place back', async () => {
    const store = new MySqlStore({ client: pools[0] as mysql.Pool, table: TABLE });
    const failures: FailureInfo[] = [];
    store.on('failure', (info) => failures.push(info));
    // A window of 10^12 ms: a test run never crosses a boundary, so every instant below is exact.
    const limiter = new FixedWindowLimiter<'async'>({ store, limit: 2, windowMs: 1e12, name: `server${run++}` });
    const first = await Promise.all([reserve(limiter, 'k'), reserve(limiter, 'k')]);
    expect(first.map((r) => [r.ok, r.delayMs])).toEqual([
      [true, 0],
      [true, 0],
    ]);
    const later = await reserve(limiter, 'k');
    expect(later.ok).toBe(true);
    expect(later.delayMs, 'the next window is months away').toBeGreaterThan(1e9);
    const behind = await reserve(limiter, 'k');
    expect(Math.abs(behind.at - later.at), 'the second booking of the next window: the same boundary').toBeLessThan(1000);
    expect(await later.cancel()).toBe(true);
    const again = await reserve(limiter, 'k');
    expect(Math.abs(again.at - later.at), 'the place given back is booked again').toBeLessThan(1000);
    const third = await reserve(limiter, 'k', 1, { maxWaitMs: 1e15 });
    expect(third.at - later.at, 'the next window is full: the one after').toBeGreaterThan(0.9e12);
    expect(await wait(limiter, 'other', 1, { maxWaitMs: 0 })).toMatchObject({ allowed: true });
    expect(failures).toEqual([]);
  });

  it('refuses a booking the database cannot make (failed, closed), reports it, and never falls back', async () => {
    const store = new MySqlStore({ client: pools[0] as mysql.Pool, table: 'rkt_reserve_missing', createTable: false, onFailure: 'open' });
    const failures: FailureInfo[] = [];
    store.on('failure', (info) => failures.push(info));
    const limiter = new FixedWindowLimiter<'async'>({ store, limit: 2, windowMs: 1000 });
    const r = await reserve(limiter, 'k');
    expect([r.ok, r.delayMs, r.decision.allowed, r.decision.failure]).toEqual([false, Infinity, false, 'closed']);
    expect(await r.cancel()).toBe(false);
    expect(failures.map((f) => [f.operation, f.reason])).toEqual([['reserve', 'reply']]);
    await expect(wait(limiter, 'k')).rejects.toMatchObject({ reason: 'unavailable' });
  });
});
