/**
 * reserve and wait on MySqlStore, beyond the shared contract (store-contract.test.ts, whose
 * differential holds every booking and cancel to the memory store's, one call at a time):
 *
 * - under concurrency, store-contract's bookingQueueChecks: four stores, each with its own pool,
 *   book 40 unit requests each on one key at once, for every algorithm, with default options: exactly
 *   the memory store's one-at-a-time queue, never beyond the limit; and its cancel checks: a cancel
 *   at or after the booked instant gives nothing back, and two cancels of one booking at once give
 *   back exactly one unit;
 * - on the server's clock (default options): a spent key books at the next window and a cancel gives
 *   the place back;
 * - a booking the database cannot make is refused (`failed`, 'closed'), reported, never decided by
 *   the failure policy.
 *
 * Mutant builds (./support/mutant-builds.ts), each caught by the same check: a booking that ignores
 * the bookings ahead of it ('ledger-unsaved'), a cancel that gives back after the instant
 * ('cancel-after-instant'), and batches without row locks ('no-lock').
 */
import { FixedWindowLimiter, reserve, wait } from '@ratekeeper/core';
import type mysql from 'mysql2/promise';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { bookingQueueChecks } from '@ratekeeper/store-contract';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';

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

bookingQueueChecks({
  describe: describeMySql,
  stores: async (mutant) => {
    const Made = await build(mutant);
    return (index) => new Made({ client: pools[index] as mysql.Pool, table: TABLE, time: 'client' });
  },
  cancelAfterInstant: 'cancel-after-instant',
  mutants: [
    ['a booking that ignores the bookings ahead of it', 'ledger-unsaved'],
    ['batches that read without row locks', 'no-lock'],
  ],
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
