/**
 * Bookings from several processes at once, for a store that several processes share (PostgresStore,
 * MySqlStore, SqliteStore, RedisStore): four stores, each on its own connection pool, book 40 unit requests each on one key,
 * one after another per store and the four at once (160 transactions interleaved on the server), for
 * every algorithm, with default options and `time: 'client'` on one ManualClock. Taken in the order of
 * their instants the bookings are exactly the memory store's one-at-a-time queue (exactly `limit` go
 * at once, the rest at the instants a queue gives), and replayed at their instants on a fresh limiter
 * every one is admitted (never beyond the limit). Each mutant the store names (a booking that ignores
 * those ahead, batches without row locks) breaks that within three runs (RATEKEEPER_QUEUE_MUTANT_RUNS
 * sets how many, to measure how often one run catches it).
 *
 * And cancels, on one store: a cancel at or after the booked instant gives nothing back (the request
 * may have gone: exactly one of two consumes is admitted there at a limit of 2; the store's mutant
 * that gives back after the instant admits both), and two cancels of one booking at once: exactly one
 * succeeds, and exactly its unit comes back.
 *
 * Use, in a store package's tests (`describe` is the package's own, skipped without a server):
 *
 *   bookingQueueChecks({ describe: describeDb, stores: async (mutant) => …, mutants: [[what, name]] });
 */
import { FixedWindowLimiter, ManualClock, MemoryStore, type Mode, type Reservation, type Store, reserve } from '@ratekeeper/core';
import { describe as vitestDescribe, expect, it } from 'vitest';
import { type Spec, makeLimiter } from '../differential/histories.js';

const STORES = 4;
const EACH = 40;
const LIMIT = 5;
const T0 = 1_700_000_000_000;
const MUTANT_QUEUE_RUNS = Number(process.env['RATEKEEPER_QUEUE_MUTANT_RUNS'] ?? 3);
const SPECS: readonly Spec[] = [
  { algorithm: 'token-bucket', capacity: LIMIT, refillPerSecond: 1 },
  { algorithm: 'sliding-window', limit: LIMIT, windowMs: 10_000 },
  { algorithm: 'fixed-window', limit: LIMIT, windowMs: 10_000 },
  { algorithm: 'sliding-log', limit: LIMIT, windowMs: 10_000 },
  { algorithm: 'first-request-window', limit: LIMIT, windowMs: 10_000 },
];

export interface BookingCheckOptions<Mutant extends string> {
  /** describe groups the checks: the package's own, which skips them when its server is missing. */
  readonly describe?: typeof vitestDescribe.skip;
  /**
   * stores answers a maker of the processes' stores: `make(index)` (index 0 to 3) makes a new store of
   * process `index` on that process's own pool, with `time: 'client'` and otherwise default options, on
   * one table shared by all; of the package's own build, or of `mutant`'s.
   */
  readonly stores: (mutant?: Mutant) => Promise<(index: number) => Store>;
  /** The store's mutants the queue check must catch, each as [what it does wrong, its name]; run on a fixed window. */
  readonly mutants: readonly (readonly [string, Mutant])[];
  /** The store's mutant whose cancel gives back at or after the booked instant. */
  readonly cancelAfterInstant: Mutant;
}

let run = 0;

/** StoreFailed: a reservation the store could not decide (a timeout, a connection lost), never a queue broken. */
class StoreFailed extends Error {}

/** bookingQueueChecks registers the cross-process booking checks (see above). */
export function bookingQueueChecks<Mutant extends string>(options: BookingCheckOptions<Mutant>): void {
  const group = options.describe ?? vitestDescribe;

  /** queue books EACH unit requests per store, the stores at once, and throws the first broken guarantee. */
  async function queue(spec: Spec, mutant?: Mutant): Promise<void> {
    const make = await options.stores(mutant);
    const clock = new ManualClock(T0);
    const name = `queue${run++}`;
    const limiters = Array.from({ length: STORES }, (_, i) => makeLimiter(spec, make(i), clock, name));
    const answers = await Promise.all(
      limiters.map(async (limiter) => {
        const mine: Reservation<Mode>[] = [];
        for (let i = 0; i < EACH; i++) mine.push(await reserve(limiter, 'k'));
        return mine;
      }),
    );
    const got = answers.flat();
    // A store failure is no verdict on the queue: it fails the check as itself, never as a mutant caught.
    const failed = got.filter((r) => r.decision.failure !== undefined);
    if (failed.length > 0) throw new StoreFailed(`${failed.length} reservations failed in the store (decided by its failure policy: ${failed[0]?.decision.failure})`);
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

  group('reservations from four stores at once, on one key', () => {
    for (const spec of SPECS) {
      it(`serves ${spec.algorithm} bookings first come first, exactly as a queue, never beyond the limit`, async () => {
        await queue(spec);
      });
    }

    for (const [what, mutant] of options.mutants) {
      it(`catches ${what} (mutant ${mutant}), within 3 runs`, async () => {
        // A run in which the store failed (a loaded machine's timeout) says nothing of the queue: it is
        // not counted, as neither a catch nor one of the 3 runs (at most 3 such runs more).
        const caught: unknown[] = [];
        for (let runs = 0, tries = 0; runs < MUTANT_QUEUE_RUNS && tries < 2 * MUTANT_QUEUE_RUNS && caught.length === 0; tries++) {
          const error = await queue(SPECS[2] as Spec, mutant).then(
            () => undefined,
            (e: unknown) => e,
          );
          if (error instanceof StoreFailed) continue;
          runs++;
          if (error !== undefined) caught.push(error);
        }
        expect(String(caught[0])).toMatch(/go at once|not a first-come queue|is early|refused/);
      });
    }
  });

  /** fixed is a fixed window of `limit` per `windowMs` on a new store of process 0 (of `mutant`'s build). */
  async function fixed(clock: ManualClock, limit: number, windowMs: number, mutant?: Mutant) {
    const make = await options.stores(mutant);
    return new FixedWindowLimiter<Mode>({ store: make(0) as Store<Mode>, clock, limit, windowMs, name: `fixed${run++}` });
  }

  /** afterInstant: a booking whose instant has come, cancelled then: how many of two consumes at that instant are admitted (limit 2). */
  async function afterInstant(mutant?: Mutant): Promise<number> {
    const clock = new ManualClock(T0);
    const limiter = await fixed(clock, 2, 1000, mutant);
    for (let i = 0; i < 2; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    const r = await reserve(limiter, 'k');
    expect([r.ok, r.delayMs]).toEqual([true, 1000]);
    clock.set(T0 + 1000); // the instant has come: the request may have gone
    const cancelled = await r.cancel();
    const admitted = [await limiter.consume('k'), await limiter.consume('k')].filter((d) => d.allowed).length;
    expect(cancelled, 'a cancel at the instant').toBe(admitted === 2);
    return admitted;
  }

  group('cancel', () => {
    it('gives nothing back at or after the booked instant: exactly one of two consumes is admitted there (limit 2)', async () => {
      expect(await afterInstant()).toBe(1);
    });

    it(`catches a cancel that gives back after the instant (mutant ${options.cancelAfterInstant})`, async () => {
      expect(await afterInstant(options.cancelAfterInstant)).toBe(2);
    });

    it('two cancels of one booking at once: exactly one succeeds, and exactly its unit comes back', async () => {
      const clock = new ManualClock(T0);
      const limiter = await fixed(clock, 3, 1000);
      for (let i = 0; i < 3; i++) expect((await limiter.consume('k')).allowed).toBe(true);
      const booked = await Promise.all([reserve(limiter, 'k'), reserve(limiter, 'k'), reserve(limiter, 'k')]);
      expect(booked.map((r) => r.delayMs)).toEqual([1000, 1000, 1000]);
      const middle = booked[1] as Reservation<Mode>;
      expect((await Promise.all([middle.cancel(), middle.cancel()])).sort()).toEqual([false, true]);
      clock.set(T0 + 1000);
      const admitted = (await Promise.all([limiter.consume('k'), limiter.consume('k')])).filter((d) => d.allowed).length;
      expect(admitted, 'the two bookings left hold 2 of 3 at +1000 ms').toBe(1);
    });
  });
}
