/**
 * Differential test: the memory store is the specification. The same random histories (fast-check)
 * run on a MemoryStore and on a MySqlStore (time: 'client', one ManualClock), and every decision must
 * be identical, field for field and bit for bit: consume, peek, allow, reset and refund, for each
 * algorithm and for composites, on hostile keys. Each history runs twice: one call at a time (a batch
 * per call) and all its calls at once (one batch: the calls on one key run in arrival order inside one
 * transaction). Reservations too: reserve (ok, delayMs, decision) and cancel (its answer) mixed with
 * consumes, peeks, resets and refunds, one call at a time (a cancel is made at its step's instant). A
 * store that keeps state in single precision (the 'lossy-state' mutant) must fail, and so must one whose
 * booking ignores the bookings ahead of it ('book-jumps-queue').
 */
import { CompositeLimiter, ManualClock, MemoryStore, type RateLimiter, type Reservation, type Store, reserve } from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { EXPIRED_GRACE_MS, type FailureInfo, MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { ALGORITHMS, type BookingStep, Instants, type Spec, type Step, bookingSteps, composites, makeLimiter, specs, startInstant, steps } from '@ratekeeper/store-contract';
import { mutantBuild } from './support/mutant-builds.js';

const pool = createPool();
const TABLE = table('diff');
const store = new MySqlStore({ client: pool, table: TABLE, time: 'client' });
const failures: FailureInfo[] = [];
store.on('failure', (info) => failures.push(info));
let run = 0;
/** RATEKEEPER_DIFF_RUNS raises the number of histories per property. */
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 15);
/** Keys a client could send: empty, a lone surrogate, longer than the stored-as-is bound, differing only at the end. */
const HOSTILE = ['', '\ud800', `${'k'.repeat(300)}a`, `${'k'.repeat(300)}b`, 'é\u0000\uffff'];

afterAll(async () => {
  await dropTable(pool, TABLE).catch(() => undefined);
  await pool.end();
});

function limiterOf<M extends 'sync' | 'async'>(members: readonly Spec[], on: Store<M>, clock: ManualClock, names: readonly string[]): RateLimiter<M> {
  const limiters = members.map((spec, i) => makeLimiter(spec, on, clock, names[i]));
  return limiters.length === 1 ? (limiters[0] as RateLimiter<M>) : (new CompositeLimiter(limiters) as RateLimiter<M>);
}

async function replay(members: readonly Spec[], start: number, history: readonly BookingStep[], together: boolean, on: Store<'async'> = store): Promise<void> {
  const clock = new ManualClock(start);
  const names = members.map((_, i) => `run${run}-${i}`);
  const memory = limiterOf(members, new MemoryStore(), clock, names);
  const mysql = limiterOf(members, on, clock, names);
  const prefix = `run${run++}:`;
  const instants = new Instants(start, EXPIRED_GRACE_MS);
  const pending: Promise<void>[] = [];
  const reservations: [Reservation<'sync'>, Reservation<'async'>][] = [];
  for (const [i, step] of history.entries()) {
    clock.set(instants.next(step.dt));
    const key = `${prefix}${HOSTILE[step.key % HOSTILE.length]}`;
    const where = `step ${i} (${step.op} cost ${step.cost} at ${clock.now()})`;
    let check: Promise<void>;
    if (step.op === 'reserve') {
      const options = step.maxWaitMs === undefined ? {} : { maxWaitMs: step.maxWaitMs };
      const want = reserve(memory, key, step.cost, options);
      check = reserve(mysql, key, step.cost, options).then((got) => {
        expect(booked(got), where).toEqual(booked(want));
        reservations.push([want, got]);
      });
    } else if (step.op === 'cancel') {
      const pair = reservations[(step.pick ?? 0) % Math.max(1, reservations.length)];
      if (pair === undefined) continue;
      const want = pair[0].cancel();
      check = pair[1].cancel().then((got) => void expect(got, where).toBe(want));
    } else if (step.op === 'reset' || step.op === 'refund') {
      memory[step.op]?.(key, step.cost);
      check = Promise.resolve(mysql[step.op]?.(key, step.cost));
    } else if (step.op === 'allow') {
      const want = memory.allow(key, step.cost);
      check = mysql.allow(key, step.cost).then((got) => void expect(got, where).toBe(want));
    } else {
      const want = memory[step.op](key, step.cost);
      check = mysql[step.op](key, step.cost).then((got) => void expect(got, where).toEqual(want));
    }
    if (together) pending.push(check);
    else await check;
  }
  await Promise.all(pending);
  expect(failures).toEqual([]);
}

/** booked is what a reservation answered (its `at` counts from when the answer arrived, so it is left out). */
function booked(r: Reservation<'sync'> | Reservation<'async'>) {
  return { ok: r.ok, delayMs: r.delayMs, decision: r.decision };
}

function property(members: fc.Arbitrary<Spec[]>, on?: Store<'async'>) {
  return fc.asyncProperty(
    members.chain((m) => fc.tuple(fc.constant(m), startInstant, steps(m, HOSTILE.length), fc.boolean())),
    ([m, start, history, together]) => replay(m, start, history, together, on),
  );
}

/** bookings replays reservation histories one call at a time (a cancel is made at the clock of its step, on the reservation as answered). */
function bookings(members: fc.Arbitrary<Spec[]>, on?: Store<'async'>) {
  return fc.asyncProperty(
    members.chain((m) => fc.tuple(fc.constant(m), startInstant, bookingSteps(m))),
    ([m, start, history]) => replay(m, start, history, false, on),
  );
}

describeMySql('MySqlStore decides exactly as the memory store', () => {
  for (const algorithm of ALGORITHMS) {
    it(`gives identical ${algorithm} decisions, refunds and resets included, one call at a time and in one batch`, async () => {
      await fc.assert(property(specs[algorithm].map((s) => [s as Spec])), { numRuns: RUNS });
    });
  }

  it('gives identical composite decisions, all or nothing', async () => {
    await fc.assert(property(composites), { numRuns: RUNS });
  });

  for (const algorithm of ALGORITHMS) {
    it(`books and cancels ${algorithm} reservations exactly as the memory store, between consumes, resets and refunds`, async () => {
      await fc.assert(bookings(specs[algorithm].map((s) => [s as Spec])), { numRuns: RUNS });
    });
  }

  it('books and cancels composite reservations exactly as the memory store, all members or none', async () => {
    await fc.assert(bookings(composites), { numRuns: RUNS });
  });

  it('catches a store that keeps state in single precision', async () => {
    const { MySqlStore: Lossy } = (await import(mutantBuild('lossy-state'))) as { MySqlStore: typeof MySqlStore };
    const lossy = new Lossy({ client: pool, table: TABLE, time: 'client' });
    const spec = { algorithm: 'token-bucket', capacity: 10, refillPerSecond: 1 / 3 } as const;
    const history: Step[] = Array.from({ length: 12 }, (_, i) => ({ op: 'consume', dt: i === 0 ? 0 : 777, cost: 1, key: 0 }));
    await expect(replay([spec], 1_700_000_000_001, history, false, lossy)).rejects.toThrow(/step \d+ \(consume/);
  });

  it('catches a booking that ignores the bookings ahead of it', async () => {
    const { MySqlStore: Jumps } = (await import(mutantBuild('book-jumps-queue'))) as { MySqlStore: typeof MySqlStore };
    const jumps = new Jumps({ client: pool, table: TABLE, time: 'client' });
    const spec = { algorithm: 'fixed-window', limit: 2, windowMs: 1000 } as const;
    const history: BookingStep[] = Array.from({ length: 5 }, () => ({ op: 'reserve', dt: 0, cost: 1, key: 0 }));
    await replay([spec], 1_700_000_000_000, history, false);
    await expect(replay([spec], 1_700_000_000_000, history, false, jumps)).rejects.toThrow(/step 3 \(reserve/);
  });
});
