/**
 * Differential test: the memory store is the specification. The same random histories (fast-check)
 * run on a MemoryStore and on a PostgresStore with `time: 'client'` and one ManualClock, and every
 * decision must be identical, field for field and bit for bit (-0 and fractional figures included):
 * consume, peek, allow, reset and refund, for each algorithm and for composites, on hostile keys,
 * through a pg Pool and through postgres.js. The store runs core's own steps in its transactions, so
 * this holds the plumbing (the state's text form, row keys, composites' all or nothing, refunds, the
 * batch) to the memory store's behaviour. Calls made in one turn, decided in one batch, must decide
 * as the same calls one by one. A store that writes states in single precision (the 'lossy-state'
 * mutant build) must fail the same property.
 *
 * Bans likewise: a BanLimiter over each algorithm, and on the same keys a composite of its limiter and
 * another (which shares the algorithm's rows but not the ban, as on the memory store), every step
 * through one or the other: consume, peek, allow, refund (lifting a ban the refund makes needless),
 * reset, one call at a time or every call of a history in one batch. A store whose peek starts a ban
 * (the 'peek-bans' mutant build) must fail it.
 *
 * Reservations too (the memory store's booking code runs on the locked rows: src/reserve.ts): reserve
 * (ok, delayMs, decision) and cancel (its answer) mixed with consumes, peeks, resets and refunds, one
 * call at a time, for each algorithm and for composites. A store whose booking does not keep its
 * ledger (the 'ledger-unsaved' mutant build) must fail it.
 */
import { BanLimiter, CompositeLimiter, ManualClock, MemoryStore, type RateLimiter, type Reservation, type Store, reserve } from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { EXPIRED_GRACE_MS, type FailureInfo, PostgresStore } from '../src/index.js';
import { type Client, type ClientKind, describeDb, dropTables, makeClient, uniqueTable } from './support/db.js';
import {
  ALGORITHMS,
  type BookingStep,
  Instants,
  type Spec,
  type Step,
  banHistories,
  bookingSteps,
  composites,
  makeLimiter,
  specs,
  startInstant,
  steps,
} from '@ratekeeper/store-contract';
import { mutantBuild } from './support/mutant-builds.js';

const table = uniqueTable('diff');
const clients: Client[] = [];
let run = 0;
/** RATEKEEPER_DIFF_RUNS raises the number of histories per property. */
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 25);
/** Keys a client could send: empty, a lone surrogate, longer than the stored-as-is bound, differing only at the end, NUL. */
const HOSTILE = ['', '\ud800', `${'k'.repeat(300)}a`, `${'k'.repeat(300)}b`, 'é\u0000\uffff'];

afterAll(async () => {
  for (const c of clients) await c.end();
  await dropTables(table);
});

type StoreClass = typeof PostgresStore;

function storeOf(kind: ClientKind, Store: StoreClass = PostgresStore): { store: PostgresStore; failures: FailureInfo[] } {
  const client = makeClient(kind);
  clients.push(client);
  const store = new Store({ client: client.client, table, time: 'client' });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  return { store, failures };
}

function limiterOf<M extends 'sync' | 'async'>(members: readonly Spec[], on: Store<M>, clock: ManualClock, names: readonly string[]): RateLimiter<M> {
  const limiters = members.map((spec, i) => makeLimiter(spec, on, clock, names[i]));
  return limiters.length === 1 ? (limiters[0] as RateLimiter<M>) : (new CompositeLimiter(limiters) as unknown as RateLimiter<M>);
}

async function replay(target: { store: PostgresStore; failures: FailureInfo[] }, members: readonly Spec[], start: number, history: readonly BookingStep[]): Promise<void> {
  const clock = new ManualClock(start);
  const names = members.map((_, i) => `run${run}-${i}`);
  const memory = limiterOf(members, new MemoryStore(), clock, names);
  const postgres = limiterOf(members, target.store, clock, names);
  const prefix = `run${run++}:`;
  const instants = new Instants(start, EXPIRED_GRACE_MS);
  const reservations: [Reservation<'sync'>, Reservation<'async'>][] = [];
  for (const [i, step] of history.entries()) {
    clock.set(instants.next(step.dt));
    const key = `${prefix}${HOSTILE[step.key % HOSTILE.length]}`;
    const where = `step ${i} (${step.op} cost ${step.cost} at ${clock.now()})`;
    if (step.op === 'reserve') {
      const options = step.maxWaitMs === undefined ? {} : { maxWaitMs: step.maxWaitMs };
      const want = reserve(memory, key, step.cost, options);
      const got = await reserve(postgres, key, step.cost, options);
      expect(booked(got), where).toEqual(booked(want));
      reservations.push([want, got]);
    } else if (step.op === 'cancel') {
      const pair = reservations[(step.pick ?? 0) % Math.max(1, reservations.length)];
      if (pair !== undefined) {
        const want = pair[0].cancel();
        expect(await pair[1].cancel(), where).toBe(want);
      }
    } else if (step.op === 'reset' || step.op === 'refund') {
      memory[step.op]?.(key, step.cost);
      await postgres[step.op]?.(key, step.cost);
    } else if (step.op === 'allow') {
      expect(await postgres.allow(key, step.cost), where).toBe(memory.allow(key, step.cost));
    } else {
      expect(await postgres[step.op](key, step.cost), where).toEqual(memory[step.op](key, step.cost));
    }
  }
  expect(target.failures).toEqual([]);
}

/** booked is what a reservation answered (its `at` counts from when the answer arrived, so it is left out). */
function booked(r: Reservation<'sync'> | Reservation<'async'>) {
  return { ok: r.ok, delayMs: r.delayMs, decision: r.decision };
}

/** BanStep is a step made through the BanLimiter or (`composite`) through the composite of its limiter and another. */
type BanStep = Step & { readonly composite: boolean };

/** banCases: a ban history of `algorithm` (./support/histories.ts), the composite's other member, a start, each step's route (a fifth through the composite) and whether all go in one batch. */
function banCases(algorithm: (typeof ALGORITHMS)[number]) {
  return fc
    .tuple(banHistories(algorithm), specs['fixed-window'], startInstant, fc.boolean())
    .chain(([h, other, start, together]) =>
      fc.tuple(
        fc.constant([h.spec, other] as const),
        fc.constant(h.banMs),
        fc.constant(start),
        fc.tuple(fc.constant(h.history), fc.array(fc.nat(4), { minLength: h.history.length, maxLength: h.history.length })),
        fc.constant(together),
      ),
    );
}

async function replayBans(
  target: { store: PostgresStore; failures: FailureInfo[] },
  [spec, other]: readonly [Spec, Spec],
  banMs: number,
  start: number,
  [history, routes]: readonly [readonly Step[], readonly number[]],
  together: boolean,
): Promise<void> {
  const clock = new ManualClock(start);
  const names = [`ban${run}-0`, `ban${run}-1`];
  const make = <M extends 'sync' | 'async'>(on: Store<M>) => {
    const limiter = makeLimiter(spec, on, clock, names[0]);
    return { ban: new BanLimiter<M>({ limiter, banMs }), composite: new CompositeLimiter<M>([limiter, makeLimiter(other, on, clock, names[1])]) };
  };
  const memory = make(new MemoryStore());
  const postgres = make(target.store);
  const prefix = `ban${run++}:`;
  const instants = new Instants(start, EXPIRED_GRACE_MS);
  const checks: Promise<void>[] = [];
  for (const [i, plain] of history.entries()) {
    const step: BanStep = { ...plain, composite: routes[i] === 0 };
    clock.set(instants.next(step.dt));
    const key = `${prefix}${HOSTILE[step.key % HOSTILE.length]}`;
    const where = `step ${i} (${step.composite ? 'composite ' : ''}${step.op} cost ${step.cost} at ${clock.now()})`;
    const m = step.composite ? memory.composite : memory.ban;
    const p = step.composite ? postgres.composite : postgres.ban;
    let check: Promise<void>;
    if (step.op === 'reset' || step.op === 'refund') {
      m[step.op](key, step.cost);
      check = p[step.op](key, step.cost);
    } else if (step.op === 'allow') {
      const want = m.allow(key, step.cost);
      check = p.allow(key, step.cost).then((got) => void expect(got, where).toBe(want));
    } else {
      const want = m[step.op](key, step.cost);
      check = p[step.op](key, step.cost).then((got) => void expect(got, where).toEqual(want));
    }
    if (together) checks.push(check);
    else await check;
  }
  await Promise.all(checks);
  expect(target.failures).toEqual([]);
}

describeDb('a PostgresStore decides as the memory store', () => {
  for (const kind of ['pg', 'postgres'] as const) {
    const target = storeOf(kind);
    const runs = kind === 'pg' ? RUNS : Math.ceil(RUNS / 2);
    for (const algorithm of ALGORITHMS) {
      it(`gives identical decisions for ${algorithm} through ${kind}`, async () => {
        await fc.assert(
          fc.asyncProperty(
            specs[algorithm].chain((spec) => fc.tuple(fc.constant([spec] as Spec[]), startInstant, steps([spec]))),
            async ([members, start, history]) => replay(target, members, start, history),
          ),
          { numRuns: runs },
        );
      });
    }

    it(`gives identical decisions for composites through ${kind}, all or nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(
          composites.chain((members) => fc.tuple(fc.constant(members), startInstant, steps(members))),
          async ([members, start, history]) => replay(target, members, start, history),
        ),
        { numRuns: runs },
      );
    });
  }

  for (const kind of ['pg', 'postgres'] as const) {
    const target = storeOf(kind);
    const runs = kind === 'pg' ? RUNS : Math.ceil(RUNS / 2);
    for (const algorithm of ALGORITHMS) {
      it(`books and cancels ${algorithm} reservations as the memory store, between consumes, resets and refunds, through ${kind}`, async () => {
        await fc.assert(
          fc.asyncProperty(
            specs[algorithm].chain((spec) => fc.tuple(fc.constant([spec] as Spec[]), startInstant, bookingSteps([spec]))),
            async ([members, start, history]) => replay(target, members, start, history),
          ),
          { numRuns: runs },
        );
      });
    }

    it(`books and cancels composite reservations as the memory store, all members or none, through ${kind}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          composites.chain((members) => fc.tuple(fc.constant(members), startInstant, bookingSteps(members))),
          async ([members, start, history]) => replay(target, members, start, history),
        ),
        { numRuns: runs },
      );
    });
  }

  for (const kind of ['pg', 'postgres'] as const) {
    const target = storeOf(kind);
    const runs = kind === 'pg' ? RUNS : Math.ceil(RUNS / 2);
    for (const algorithm of ALGORITHMS) {
      it(`gives identical decisions for bans on ${algorithm} through ${kind}, beside a composite of the banned limiter`, async () => {
        await fc.assert(
          fc.asyncProperty(banCases(algorithm), async ([members, banMs, start, history, together]) => replayBans(target, members, banMs, start, history, together)),
          { numRuns: runs },
        );
      });
    }
  }

  it('catches a store whose peek starts a ban (peek-bans mutant)', async () => {
    const { PostgresStore: PeekBans } = (await import(mutantBuild('peek-bans'))) as { PostgresStore: StoreClass };
    const target = storeOf('pg', PeekBans);
    const spec: Spec = { algorithm: 'fixed-window', limit: 1, windowMs: 1000 };
    const history: Step[] = [
      { op: 'consume', dt: 0, cost: 1, key: 0 },
      { op: 'peek', dt: 0, cost: 1, key: 0 },
      { op: 'consume', dt: 2000, cost: 1, key: 0 },
    ];
    const replayed = (on: typeof target) => replayBans(on, [spec, spec], 5000, 1_700_000_000_000, [history, [1, 1, 1]], false);
    await replayed(storeOf('pg'));
    await expect(replayed(target)).rejects.toThrow(/step 2 \(consume cost 1/);
  });

  it('a reset empties the booking ledger too: the next booking goes at once (a history fast-check found)', async () => {
    const spec: Spec = { algorithm: 'token-bucket', capacity: 1, refillPerSecond: 50 };
    const history: BookingStep[] = [
      { op: 'reserve', dt: 1, cost: 1, key: 0, maxWaitMs: 0 },
      { op: 'reserve', dt: 0, cost: 1, key: 0, maxWaitMs: 20 },
      { op: 'reset', dt: 0, cost: 1, key: 0 },
      { op: 'reserve', dt: 0, cost: 1, key: 0, maxWaitMs: 1 },
    ];
    await replay(storeOf('pg'), [spec], 1_577_836_800_000, history);
  });

  it('catches a booking that does not keep its ledger (ledger-unsaved mutant: the next booking jumps the queue)', async () => {
    const { PostgresStore: Unsaved } = (await import(mutantBuild('ledger-unsaved'))) as { PostgresStore: StoreClass };
    const spec: Spec = { algorithm: 'fixed-window', limit: 2, windowMs: 1000 };
    const history: BookingStep[] = Array.from({ length: 5 }, () => ({ op: 'reserve', dt: 0, cost: 1, key: 0 }));
    await replay(storeOf('pg'), [spec], 1_700_000_000_000, history);
    await expect(replay(storeOf('pg', Unsaved), [spec], 1_700_000_000_000, history)).rejects.toThrow(/step 3 \(reserve/);
  });

  it('decides calls made in one turn (one batch) as the same calls one by one', async () => {
    const target = storeOf('pg');
    await fc.assert(
      fc.asyncProperty(specs['sliding-log'], startInstant, fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 30 }), async (spec, start, costs) => {
        const clock = new ManualClock(start);
        const name = `turn${run++}`;
        const memory = makeLimiter(spec, new MemoryStore(), clock, name);
        const postgres = makeLimiter(spec, target.store, clock, name);
        const together = await Promise.all(costs.map((cost) => postgres.consume('k', cost)));
        expect(together).toEqual(costs.map((cost) => memory.consume('k', cost)));
      }),
      { numRuns: 15 },
    );
    expect(target.store.batching.calls / target.store.batching.batches).toBeGreaterThan(1.5);
  });

  it('catches a store that keeps its state in single precision (lossy-state mutant)', async () => {
    const { PostgresStore: Lossy } = (await import(mutantBuild('lossy-state'))) as { PostgresStore: StoreClass };
    const target = storeOf('pg', Lossy);
    const caught = await fc
      .assert(
        fc.asyncProperty(
          specs['token-bucket'].chain((spec) => fc.tuple(fc.constant([spec] as Spec[]), startInstant, steps([spec]))),
          async ([members, start, history]) => replay(target, members, start, history),
        ),
        { numRuns: 200 },
      )
      .then(
        () => false,
        () => true,
      );
    expect(caught).toBe(true);
  });
});
