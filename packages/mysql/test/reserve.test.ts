/**
 * reserve and wait on MySqlStore, beyond the shared contract (store-contract.test.ts) and the
 * differential test (which holds every booking and cancel to the memory store's, one call at a time):
 *
 * - under concurrency: four stores, each with its own pool, book 40 unit requests each on one key,
 *   one after another per store and the four at once (160 transactions interleaved on the server), for
 *   every algorithm: taken in the order of their instants the bookings are exactly the memory store's
 *   one-at-a-time queue (exactly `limit` go at once, the rest at the instants a queue gives), and
 *   replayed at their instants on a fresh limiter every one is admitted (never beyond the limit);
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
import { FixedWindowLimiter, type Limiter, ManualClock, MemoryStore, type Policy, type Reservation, reserve, wait } from '@ratekeeper/core';
import type mysql from 'mysql2/promise';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { type Spec, makeLimiter } from '@ratekeeper/store-contract';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';

const STORES = 4;
const EACH = 40;
const LIMIT = 5;
const T0 = 1_700_000_000_000;
const SPECS: readonly Spec[] = [
  { algorithm: 'token-bucket', capacity: LIMIT, refillPerSecond: 1 },
  { algorithm: 'sliding-window', limit: LIMIT, windowMs: 10_000 },
  { algorithm: 'fixed-window', limit: LIMIT, windowMs: 10_000 },
  { algorithm: 'sliding-log', limit: LIMIT, windowMs: 10_000 },
];

const TABLE = table('reserve');
const pools: mysql.Pool[] = Array.from({ length: STORES }, () => createPool(4));
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

/** queue books EACH unit requests per store, the stores at once, and throws the first broken guarantee. */
async function queue(spec: Spec, Made: Store): Promise<void> {
  const clock = new ManualClock(T0);
  const name = `queue${run++}`;
  const limiters = pools.map((client) => makeLimiter(spec, new Made({ client, table: TABLE, time: 'client', onFailure: 'closed', timeoutMs: 10_000 }), clock, name));
  const answers = await Promise.all(
    limiters.map(async (limiter) => {
      const mine: Reservation<'async'>[] = [];
      for (let i = 0; i < EACH; i++) mine.push(await reserve(limiter, 'k'));
      return mine;
    }),
  );
  const got = answers.flat();
  const refused = got.filter((r) => !r.ok).length;
  if (refused > 0) throw new Error(`${refused} reservations refused, though a unit cost always fits`);
  const delays = got.map((r) => r.delayMs).sort((a, b) => a - b);
  const memory = makeLimiter(spec, new MemoryStore(), new ManualClock(T0));
  const want = delays.map(() => reserve(memory, 'k').delayMs);
  const atOnce = delays.filter((d) => d === 0).length;
  if (atOnce !== LIMIT) throw new Error(`${atOnce} reservations go at once; the limit is ${LIMIT}`);
  if (delays.some((d, i) => d !== want[i])) throw new Error(`the bookings are not a first-come queue: got ${delays}, a queue gives ${want}`);
  const replay = new ManualClock(T0);
  const fresh = makeLimiter(spec, new MemoryStore(), replay);
  for (const [i, d] of delays.entries()) {
    replay.set(T0 + d);
    if (!fresh.consume('k').allowed) throw new Error(`booking ${i} at +${d} ms is early: a fresh limiter denies it there`);
  }
}

function fixed(store: MySqlStore, clock: ManualClock, limit: number, windowMs: number): Limiter<Policy, 'async'> {
  return new FixedWindowLimiter<'async'>({ store, clock, limit, windowMs, name: `fixed${run++}` });
}

describeMySql('reservations from four stores at once, on one key', () => {
  for (const spec of SPECS) {
    it(`serves ${spec.algorithm} bookings first come first, exactly as a queue, never beyond the limit`, async () => {
      await queue(spec, MySqlStore);
    });
  }

  const mutants: readonly [string, MutantName, Spec][] = [
    ['a booking that ignores the bookings ahead of it', 'book-jumps-queue', SPECS[2] as Spec],
    ['batches that read without row locks', 'no-lock', SPECS[2] as Spec],
  ];
  for (const [what, mutant, spec] of mutants) {
    it(`catches ${what} (mutant ${mutant}), within 3 runs`, async () => {
      const Made = await build(mutant);
      const caught: unknown[] = [];
      for (let i = 0; i < 3 && caught.length === 0; i++) await queue(spec, Made).catch((error: unknown) => caught.push(error));
      expect(String(caught[0])).toMatch(/go at once|not a first-come queue|is early|refused/);
    });
  }
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
