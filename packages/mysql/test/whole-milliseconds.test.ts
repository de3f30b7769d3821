/**
 * Whole milliseconds in every Decision figure (issue 31, item 8). The database's clock has
 * microseconds; core's Clock contract says whole milliseconds, and the kit decides at the server
 * clock's whole millisecond. With DEFAULT options (the database's clock), every algorithm, a
 * composite, a ban and a booking, each driven past its limit in one batch: every `remaining`,
 * `retryAfterMs` and `resetAfterMs`, and a booking's delay, is an integer. The mutant that decides at
 * the clock as read ('fractional-clock') answers fractions.
 */
import {
  BanLimiter,
  CompositeLimiter,
  type Decision,
  FixedWindowLimiter,
  GcraLimiter,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
  reserve,
} from '@ratekeeper/core';
import { afterAll, expect, it } from 'vitest';
import { MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const pool = createPool();
const TABLE = table('wholems');
let runs = 0;

afterAll(async () => {
  await dropTable(pool, TABLE).catch(() => undefined);
  await pool.end();
});

/** figures answers every figure of a batch of decisions and bookings on a store of `Store` (DEFAULT options). */
async function figures(Store: typeof MySqlStore): Promise<number[]> {
  const store = new Store({ client: pool, table: TABLE });
  const name = (what: string) => `${what}-${runs}`;
  const window = { store, limit: 3, windowMs: 7_000 };
  const limiters = [
    new TokenBucketLimiter({ store, capacity: 3, refillPerSecond: 3, name: name('tb') }),
    new FixedWindowLimiter({ ...window, name: name('fw') }),
    new SlidingWindowLimiter({ ...window, name: name('sw') }),
    new SlidingLogLimiter({ ...window, name: name('sl') }),
    new GcraLimiter({ store, emissionIntervalMs: 2_333.5, burst: 3, name: name('gcra') }),
  ];
  const composite = new CompositeLimiter([
    new TokenBucketLimiter({ store, capacity: 4, refillPerSecond: 0.7, name: name('ctb') }),
    new FixedWindowLimiter({ ...window, name: name('cfw') }),
  ]);
  const banned = new BanLimiter({ limiter: new FixedWindowLimiter({ ...window, name: name('ban') }), banMs: 5_000 });
  const booked = new FixedWindowLimiter({ ...window, name: name('book') });
  runs++;
  const calls: Promise<Decision>[] = [];
  for (let i = 0; i < 5; i++) for (const limiter of [...limiters, composite, banned]) calls.push(limiter.consume('k'), limiter.peek('k'));
  const bookings = await Promise.all(Array.from({ length: 5 }, () => reserve(booked, 'k')));
  const decisions = [...(await Promise.all(calls)), ...bookings.map((b) => b.decision)];
  expect(decisions.every((d) => d.failure === undefined)).toBe(true);
  return [...decisions.flatMap((d) => [d.remaining, d.retryAfterMs, d.resetAfterMs]), ...bookings.map((b) => b.delayMs)];
}

describeMySql("whole milliseconds on the database's clock (DEFAULT options)", () => {
  it('answers an integer in every figure: remaining, retryAfterMs, resetAfterMs, a booking delay', async () => {
    const all = await figures(MySqlStore);
    expect(all.filter((figure) => !Number.isInteger(figure))).toEqual([]);
    expect(all.filter((figure) => figure > 0).length).toBeGreaterThan(100);
  });

  it('catches a store deciding at the clock as read (microseconds)', async () => {
    const { MySqlStore: Fractional } = (await import(mutantBuild('fractional-clock'))) as { MySqlStore: typeof MySqlStore };
    expect((await figures(Fractional)).filter((figure) => !Number.isInteger(figure)).length).toBeGreaterThan(10);
  });
});
