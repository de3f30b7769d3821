/**
 * Concurrency leases on PostgresStore (ConcurrencyLimiter), beyond the shared contract (which runs the
 * acquire, release, peek, reset and composite checks on both clients): what lives across processes.
 * Two stores on two pools stand for two processes; `time: 'client'` with one ManualClock makes every
 * expiry exact.
 *
 * - A process that stops (never renews, never releases) holds its leases for leaseTtlMs and not a
 *   moment longer: another process is denied until then and admitted after. A mutant whose leases
 *   never expire ('leases-never-expire') keeps the key full for ever.
 * - A renewal keeps a lease for leaseTtlMs from the renewal, not from the acquire; a lease that already
 *   expired is not revived. A mutant whose renewal changes nothing ('renew-ignored') frees it early.
 * - A release gives back the releasing process's own unit, never another's.
 * - A renewal answered after a new unit was taken forgets only what it asked for and found gone.
 * - Acquires in flight from four stores at once take exactly the limit.
 */
import { ConcurrencyLimiter, ManualClock } from '@ratekeeper/core';
import type pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { DEFAULT_CONCURRENCY_LEASE_TTL_MS, type PostgresLeases, PostgresStore } from '../src/index.js';
import { describeDb, dropTables, pgPool, uniqueTable } from './support/db.js';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';

const TTL = DEFAULT_CONCURRENCY_LEASE_TTL_MS;
const T0 = 1_700_000_000_000;
const TABLE = uniqueTable('leases');
const pools: pg.Pool[] = Array.from({ length: 4 }, () => pgPool({ max: 4 }));
let run = 0;

afterAll(async () => {
  for (const pool of pools) await pool.end();
  await dropTables(TABLE);
});

type Store = typeof PostgresStore;
type Leases = ConcurrencyLimiter<'async'>;

async function build(mutant?: MutantName): Promise<Store> {
  if (mutant === undefined) return PostgresStore;
  return ((await import(mutantBuild(mutant))) as { PostgresStore: Store }).PostgresStore;
}

/** processes: `n` stores, one per pool, each with its ConcurrencyLimiter of `limit` under one name, on one clock. */
function processes(Made: Store, n: number, limit: number, clock: ManualClock) {
  const name = `leases${run++}`;
  return pools.slice(0, n).map((client) => new ConcurrencyLimiter<'async'>({ store: new Made({ client, table: TABLE, time: 'client' }), clock, limit, name }));
}

/** stopped: process A takes the whole limit and stops; answers whether B is admitted at TTL - 1 and at TTL. */
async function stopped(Made: Store): Promise<[boolean, boolean]> {
  const clock = new ManualClock(T0);
  const [a, b] = processes(Made, 2, 2, clock) as [Leases, Leases];
  expect((await Promise.all([a.consume('k'), a.consume('k')])).map((d) => d.allowed)).toEqual([true, true]);
  expect((await b.consume('k')).allowed, 'B while A holds the limit').toBe(false);
  clock.set(T0 + TTL - 1);
  const before = (await b.consume('k')).allowed;
  clock.set(T0 + TTL);
  const after = (await b.consume('k')).allowed;
  return [before, after];
}

/** renewal: A takes the limit (1), renews it at +TTL/2; answers whether B is admitted at +TTL, +1.5 TTL - 1 and +1.5 TTL. */
async function renewal(Made: Store): Promise<boolean[]> {
  const clock = new ManualClock(T0);
  const [a, b] = processes(Made, 2, 1, clock) as [Leases, Leases];
  expect((await a.consume('k')).allowed).toBe(true);
  clock.set(T0 + TTL / 2);
  await (a.binding as PostgresLeases).renew(clock.now());
  const seen: boolean[] = [];
  for (const at of [T0 + TTL, T0 + 1.5 * TTL - 1, T0 + 1.5 * TTL]) {
    clock.set(at);
    seen.push((await b.peek('k')).allowed);
  }
  return seen;
}

describeDb('leases across processes', () => {
  it('a stopped process holds its leases for leaseTtlMs, then another is admitted', async () => {
    expect(await stopped(PostgresStore)).toEqual([false, true]);
  });

  it('catches leases that never expire (mutant leases-never-expire)', async () => {
    expect(await stopped(await build('leases-never-expire'))).toEqual([false, false]);
  });

  it('a renewal keeps the lease for leaseTtlMs from the renewal', async () => {
    expect(await renewal(PostgresStore)).toEqual([false, false, true]);
  });

  it('catches a renewal that changes nothing (mutant renew-ignored)', async () => {
    expect(await renewal(await build('renew-ignored'))).toEqual([true, true, true]);
  });

  it("a release gives back the releasing process's own unit, never another's", async () => {
    const clock = new ManualClock(T0);
    const [a, b, c] = processes(PostgresStore, 3, 2, clock) as [Leases, Leases, Leases];
    expect((await a.consume('k')).allowed).toBe(true);
    expect((await b.consume('k')).allowed).toBe(true);
    await b.release('k');
    await b.release('k'); // B holds nothing more: A's lease stays
    expect((await c.consume('k')).allowed, 'one place: the one B gave back').toBe(true);
    expect((await c.consume('k')).allowed, "A's lease still holds the other").toBe(false);
    expect((a.binding as PostgresLeases).held('k')).toBe(1);
  });

  it('a renewal sent while another unit is being taken keeps both (it forgets only the units it asked for and found gone)', async () => {
    const clock = new ManualClock(T0);
    const [a] = processes(PostgresStore, 1, 3, clock) as [Leases];
    const binding = a.binding as PostgresLeases;
    expect((await a.consume('k')).allowed).toBe(true);
    // The acquire goes first (the key's row is then busy), the renewal, sent after it, is answered after it.
    const [second] = await Promise.all([a.consume('k'), binding.renew(clock.now())]);
    expect(second.allowed).toBe(true);
    expect(binding.held('k'), 'both units still held here').toBe(2);
    expect((await a.peek('k')).remaining, 'and in the database').toBe(0);
  });

  it('acquires in flight from four stores at once take exactly the limit', async () => {
    const clock = new ManualClock(T0);
    const stores = processes(PostgresStore, 4, 7, clock);
    const all = await Promise.all(stores.flatMap((l) => Array.from({ length: 25 }, () => l.consume('k'))));
    expect(all.filter((d) => d.allowed).length).toBe(7);
    expect(all.filter((d) => d.failure !== undefined)).toEqual([]);
  });
});
