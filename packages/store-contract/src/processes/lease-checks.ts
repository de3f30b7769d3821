/**
 * Concurrency leases across processes, for a store whose leases live in a server several processes
 * share, on the limiters' clock (the row stores: core's RowLeases on the process side;
 * SqliteStore: its own lease rows, with the same `renew(now)` and `held(key)`). The contract suite runs
 * acquire, release, peek, reset and composites on one store; these checks are what only several
 * processes show. Up to four stores, each on its own connection pool, stand for four processes, all
 * with `time: 'client'` on one ManualClock, so every expiry is exact:
 *
 * - A process that stops (never renews, never releases) holds its leases for the lease's TTL and not
 *   a moment longer: another process is denied until then and admitted after. The store's mutant
 *   'leases-never-expire' keeps the key full for ever.
 * - A renewal keeps a lease for the TTL from the renewal, not from the acquire. The mutant
 *   'renew-ignored' (a renewal that changes nothing) frees it early.
 * - A release gives back the releasing process's own unit, never another's.
 * - A renewal answered after a new unit was taken forgets only what it asked for and found gone.
 * - Acquires in flight from four stores at once take exactly the limit.
 *
 * Use, in a store package's tests (`describe` is the package's own, skipped without a server):
 *
 *   leaseChecks({ describe: describeDb, ttlMs: DEFAULT_CONCURRENCY_LEASE_TTL_MS, stores: async (mutant) => … });
 */
import { ConcurrencyLimiter, ManualClock, type Mode, type Store } from '@ratekeeper/core';
import type { RowLeases } from '@ratekeeper/core/store';
import { describe as vitestDescribe, expect, it } from 'vitest';

/** The two mutants every lease store builds for these checks. */
export type LeaseMutant = 'leases-never-expire' | 'renew-ignored';

export interface LeaseCheckOptions {
  /** describe groups the checks: the package's own, which skips them when its server is missing. */
  readonly describe?: typeof vitestDescribe.skip;
  /** ttlMs is the store's default lease TTL (the checks make the stores with default options). */
  readonly ttlMs: number;
  /**
   * stores answers a maker of the processes' stores: `make(index)` (index 0 to 3) makes a new store of
   * process `index` on that process's own pool, with `time: 'client'`, on one table shared by all; of
   * the package's own build, or of `mutant`'s.
   */
  readonly stores: (mutant?: LeaseMutant) => Promise<(index: number) => Store>;
}

type Leases = ConcurrencyLimiter<Mode>;

const T0 = 1_700_000_000_000;
let run = 0;

/** leaseChecks registers the cross-process lease checks (see above). */
export function leaseChecks(options: LeaseCheckOptions): void {
  const { ttlMs: ttl } = options;
  const group = options.describe ?? vitestDescribe;

  /** processes: `n` processes' stores, each with its ConcurrencyLimiter of `limit` under one name, on one clock. */
  async function processes(n: number, limit: number, clock: ManualClock, mutant?: LeaseMutant): Promise<Leases[]> {
    const make = await options.stores(mutant);
    const name = `leases${run++}`;
    return Array.from({ length: n }, (_, i) => new ConcurrencyLimiter<Mode>({ store: make(i) as Store<Mode>, clock, limit, name }));
  }

  /** stopped: process A takes the whole limit and stops; answers whether B is admitted at TTL - 1 and at TTL. */
  async function stopped(mutant?: LeaseMutant): Promise<[boolean, boolean]> {
    const clock = new ManualClock(T0);
    const [a, b] = (await processes(2, 2, clock, mutant)) as [Leases, Leases];
    expect((await Promise.all([a.consume('k'), a.consume('k')])).map((d) => d.allowed)).toEqual([true, true]);
    expect((await b.consume('k')).allowed, 'B while A holds the limit').toBe(false);
    clock.set(T0 + ttl - 1);
    const before = (await b.consume('k')).allowed;
    clock.set(T0 + ttl);
    const after = (await b.consume('k')).allowed;
    return [before, after];
  }

  /** renewal: A takes the limit (1), renews it at +TTL/2; answers whether B is admitted at +TTL, +1.5 TTL - 1 and +1.5 TTL. */
  async function renewal(mutant?: LeaseMutant): Promise<boolean[]> {
    const clock = new ManualClock(T0);
    const [a, b] = (await processes(2, 1, clock, mutant)) as [Leases, Leases];
    expect((await a.consume('k')).allowed).toBe(true);
    clock.set(T0 + ttl / 2);
    await holder(a).renew(clock.now());
    const seen: boolean[] = [];
    for (const at of [T0 + ttl, T0 + 1.5 * ttl - 1, T0 + 1.5 * ttl]) {
      clock.set(at);
      seen.push((await b.peek('k')).allowed);
    }
    return seen;
  }

  group('leases across processes', () => {
    it('a stopped process holds its leases for the lease TTL, then another is admitted', async () => {
      expect(await stopped()).toEqual([false, true]);
    });

    it('catches leases that never expire (mutant leases-never-expire)', async () => {
      expect(await stopped('leases-never-expire')).toEqual([false, false]);
    });

    it('a renewal keeps the lease for the TTL from the renewal', async () => {
      expect(await renewal()).toEqual([false, false, true]);
    });

    it('catches a renewal that changes nothing (mutant renew-ignored)', async () => {
      expect(await renewal('renew-ignored')).toEqual([true, true, true]);
    });

    it("a release gives back the releasing process's own unit, never another's", async () => {
      const clock = new ManualClock(T0);
      const [a, b, c] = (await processes(3, 2, clock)) as [Leases, Leases, Leases];
      expect((await a.consume('k')).allowed).toBe(true);
      expect((await b.consume('k')).allowed).toBe(true);
      await b.release('k');
      await b.release('k'); // B holds nothing more: A's lease stays
      expect((await c.consume('k')).allowed, 'one place: the one B gave back').toBe(true);
      expect((await c.consume('k')).allowed, "A's lease still holds the other").toBe(false);
      expect(holder(a).held('k')).toBe(1);
    });

    it('a renewal sent while another unit is being taken keeps both (it forgets only the units it asked for and found gone)', async () => {
      const clock = new ManualClock(T0);
      const [a] = (await processes(1, 3, clock)) as [Leases];
      const binding = holder(a);
      expect((await a.consume('k')).allowed).toBe(true);
      // The acquire goes first (the key's row is then busy), the renewal, sent after it, is answered after it.
      const [second] = await Promise.all([a.consume('k'), binding.renew(clock.now())]);
      expect(second.allowed).toBe(true);
      expect(binding.held('k'), 'both units still held here').toBe(2);
      expect((await a.peek('k')).remaining, 'and in the store').toBe(0);
    });

    it('acquires in flight from four stores at once take exactly the limit', async () => {
      const clock = new ManualClock(T0);
      const stores = await processes(4, 7, clock);
      const all = await Promise.all(stores.flatMap((l) => Array.from({ length: 25 }, () => l.consume('k'))));
      expect(all.filter((d) => d.allowed).length).toBe(7);
      expect(all.filter((d) => d.failure !== undefined)).toEqual([]);
    });
  });
}

/** holder is a limiter's lease binding (core's RowLeases, or its like): its renewals and the units it holds. */
function holder(limiter: Leases): Pick<RowLeases, 'renew' | 'held'> {
  return limiter.binding as unknown as Pick<RowLeases, 'renew' | 'held'>;
}
