/**
 * reserve and wait on PostgresStore, beyond the shared contract (store-contract.test.ts, which runs
 * every reserve check on both clients):
 *
 * - under concurrency, store-contract's bookingQueueChecks: four stores, each with its own pg Pool,
 *   book 40 unit requests each on one key at once, for every algorithm, with default options: exactly
 *   the memory store's one-at-a-time queue, never beyond the limit; and its cancel checks: a cancel
 *   at or after the booked instant gives nothing back, and two cancels of one booking at once give
 *   back exactly one unit;
 * - a cancel whose transaction runs again (a COMMIT that failed before it left) still gives back,
 *   once (a Booking's own cancel is once-only, so the store cancels through core's cancelBooking);
 * - a composite books all its members or none;
 * - on the server's clock (default options): a spent key books at the next window and a cancel gives
 *   the place back;
 * - a booking the database cannot make is refused (`failed`, 'closed'), reported, never decided by
 *   the failure policy.
 *
 * Mutant builds (./support/mutant-builds.ts), each caught by the same check: a booking that does not
 * keep its ledger ('ledger-unsaved': the next booking ignores those ahead), a cancel that gives back
 * after the instant ('cancel-after-instant'), and batches without row locks ('no-lock').
 */
import { CompositeLimiter, FixedWindowLimiter, type Limiter, ManualClock, MemoryStore, type Policy, reserve, wait } from '@ratekeeper/core';
import { bookingQueueChecks } from '@ratekeeper/store-contract';
import type pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, PostgresStore } from '../src/index.js';
import { describeDb, dropTables, pgPool, uniqueTable } from './support/db.js';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';

const T0 = 1_700_000_000_000;

const TABLE = uniqueTable('reserve');
const pools: pg.Pool[] = Array.from({ length: 4 }, () => pgPool({ max: 4 }));
let run = 0;

afterAll(async () => {
  for (const pool of pools) await pool.end();
  await dropTables(TABLE);
});

type Store = typeof PostgresStore;

async function build(mutant?: MutantName): Promise<Store> {
  if (mutant === undefined) return PostgresStore;
  return ((await import(mutantBuild(mutant))) as { PostgresStore: Store }).PostgresStore;
}

function fixed(store: PostgresStore, clock: ManualClock, limit: number, windowMs: number): Limiter<Policy, 'async'> {
  return new FixedWindowLimiter<'async'>({ store, clock, limit, windowMs, name: `fixed${run++}` });
}

bookingQueueChecks({
  describe: describeDb,
  stores: async (mutant) => {
    const Made = await build(mutant);
    return (index) => new Made({ client: pools[index] as pg.Pool, table: TABLE, time: 'client' });
  },
  cancelAfterInstant: 'cancel-after-instant',
  mutants: [
    ['a booking that does not keep its ledger', 'ledger-unsaved'],
    ['batches that read without row locks', 'no-lock'],
  ],
});

describeDb('cancel', () => {
  it('a cancel whose transaction runs again (its COMMIT failed before it left) still gives back, once', async () => {
    const real = pools[2] as pg.Pool;
    let armed = false;
    // The pool as the store sees it: the first COMMIT text after arming fails before it is sent.
    const client = {
      connect: async () => {
        const connection = await real.connect();
        return {
          query: (text: string) => {
            if (armed && text.includes('; COMMIT')) {
              armed = false;
              return Promise.reject(new Error('connection lost before the COMMIT left (test)'));
            }
            return connection.query(text);
          },
          release: (broken?: boolean) => connection.release(broken),
          on: (event: 'error', listener: (error: Error) => void) => connection.on(event, listener),
        };
      },
      query: (text: string) => real.query(text),
      on: (event: 'acquire', listener: (c: unknown) => void) => real.on(event, listener),
    };
    const clock = new ManualClock(T0);
    const limiter = fixed(new PostgresStore({ client, table: TABLE, time: 'client' }), clock, 2, 1000);
    for (let i = 0; i < 2; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    const r = await reserve(limiter, 'k');
    expect([r.ok, r.delayMs]).toEqual([true, 1000]);
    armed = true;
    expect(await r.cancel(), 'the cancel, run again after its first COMMIT failed').toBe(true);
    expect(armed, 'the first COMMIT did fail').toBe(false);
    expect(await r.cancel(), 'a second cancel of the same booking').toBe(false);
    clock.set(T0 + 1000);
    const admitted = (await Promise.all([limiter.consume('k'), limiter.consume('k')])).filter((d) => d.allowed).length;
    expect(admitted, 'the place came back: both admitted at +1000 ms').toBe(2);
  });

  it('a composite books every member or none, and its cancel gives back to every member, as on the memory store', async () => {
    /** observe runs one scenario on `store` and answers what a caller sees at each step. */
    async function observe(store: PostgresStore | MemoryStore): Promise<unknown[]> {
      const clock = new ManualClock(T0);
      const tight = new FixedWindowLimiter({ store, clock, limit: 1, windowMs: 1000, name: 'tight' });
      const loose = new FixedWindowLimiter({ store, clock, limit: 10, windowMs: 5000, name: 'loose' });
      const both = new CompositeLimiter([tight, loose]);
      const seen: unknown[] = [(await both.consume('k')).allowed];
      const r = await reserve(both, 'k');
      const refused = await reserve(both, 'k', 1, { maxWaitMs: 500 });
      seen.push([r.ok, r.delayMs], [refused.ok, refused.delayMs], (await loose.peek('k')).remaining);
      seen.push(await r.cancel(), (await loose.peek('k')).remaining, (await tight.peek('k')).allowed);
      clock.set(T0 + 1000);
      seen.push((await tight.peek('k')).allowed);
      return seen;
    }
    const want = await observe(new MemoryStore());
    expect(want, 'the memory store: booked at +1000, refused within 500, the loose member given back by the cancel').toEqual([
      true,
      [true, 1000],
      [false, Infinity],
      7,
      true,
      8,
      false,
      true,
    ]);
    const got = await observe(new PostgresStore({ client: pools[1] as pg.Pool, table: TABLE, time: 'client' }));
    expect(got).toEqual(want);
  });
});

describeDb("on the server's clock (default options)", () => {
  it('books a spent key at the next window, and a cancel gives the place back', async () => {
    const store = new PostgresStore({ client: pools[0] as pg.Pool, table: TABLE });
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
    const store = new PostgresStore({ client: pools[0] as pg.Pool, table: 'rk_reserve_missing', createTable: false, onFailure: 'open' });
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
