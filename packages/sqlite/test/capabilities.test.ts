/**
 * Bans, concurrency leases and reservations on a SqliteStore decide as on the memory store: random
 * histories (fast-check) on both with one ManualClock, every answer compared field for field. Bans:
 * consume, peek, refund (lifting a ban the refund makes needless) and reset through BanLimiter.
 * Leases: acquire, peek, release and reset through ConcurrencyLimiter, alone and in a composite with a
 * rate limit (all or nothing in one transaction). Reservations: reserve with and without a bound,
 * cancels in any order, and consumes in between, on single limiters and composites (the ledger is the
 * memory store's own code, run inside the transaction: ./src/reserve.ts).
 */
import {
  BanLimiter,
  CompositeLimiter,
  ConcurrencyLimiter,
  FixedWindowLimiter,
  ManualClock,
  MemoryStore,
  type RateLimiter,
  type Reservation,
  type Store,
  reserve,
} from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPIRED_GRACE_MS, type FailureInfo, SqliteStore } from '../src/index.js';
import { tempDir } from './support/files.js';
import { Instants, type Spec, makeLimiter, specs, startInstant } from '@ratekeeper/store-contract';

const dir = tempDir();
const store = new SqliteStore({ path: dir.file() });
const failures: FailureInfo[] = [];
store.on('failure', (info) => failures.push(info));
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 40);
let run = 0;

afterAll(() => {
  store.close();
  dir.remove();
});

const op = <T extends string>(...names: T[]) => fc.constantFrom(...names);
const dt = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 }), fc.integer({ min: -2000, max: -1 }));
const history = <T extends string>(ops: fc.Arbitrary<T>, keys = 2) =>
  fc.array(fc.record({ op: ops, dt, cost: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 4 })), key: fc.integer({ min: 0, max: keys - 1 }) }), { minLength: 1, maxLength: 40 });

describe('bans decide as on the memory store', () => {
  it('gives identical decisions through BanLimiter: consume, peek, refund, reset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1000, max: 5000 }),
        fc.integer({ min: 500, max: 8000 }),
        startInstant,
        history(op('consume', 'consume', 'peek', 'refund', 'reset')),
        (limit, windowMs, banMs, start, steps) => {
          const clock = new ManualClock(start);
          const name = `ban${run++}`;
          const make = <M extends 'sync'>(on: Store<M>) => new BanLimiter({ limiter: new FixedWindowLimiter({ limit, windowMs, store: on, clock, name }), banMs });
          const memory = make(new MemoryStore());
          const sqlite = make(store);
          const instants = new Instants(start, EXPIRED_GRACE_MS);
          for (const [i, s] of steps.entries()) {
            clock.set(instants.next(s.dt));
            const key = `${name}:${s.key}`;
            if (s.op === 'refund' || s.op === 'reset') {
              memory[s.op](key, s.cost);
              sqlite[s.op](key, s.cost);
            } else expect(sqlite[s.op](key, s.cost), `step ${i}`).toEqual(memory[s.op](key, s.cost));
          }
        },
      ),
      { numRuns: RUNS },
    );
    expect(failures).toEqual([]);
  });
});

describe('an ended ban is dropped when seen, as on the memory store (histories fast-check found)', () => {
  const T = 1_577_836_800_000;
  /** replayed runs `steps` ([op, instant]) on a memory and a SQLite BanLimiter (limit 3, window 1 s, ban 500 ms) and answers both decisions of each consume and peek. */
  function replayed(steps: readonly (readonly ['consume' | 'peek' | 'refund', number])[]) {
    const clock = new ManualClock(T);
    const name = `ended${run++}`;
    const make = <M extends 'sync'>(on: Store<M>) => new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 3, windowMs: 1000, store: on, clock, name }), banMs: 500 });
    const [memory, sqlite] = [make(new MemoryStore()), make(store)];
    const seen: unknown[][] = [];
    for (const [op, at] of steps) {
      clock.set(at);
      if (op === 'refund') {
        memory.refund('k', 1);
        sqlite.refund('k', 1);
      } else seen.push([sqlite[op]('k'), memory[op]('k')]);
    }
    return seen;
  }
  it('after a peek past its end, a clock stepped back finds no ban', () => {
    for (const [got, want] of replayed([
      ['consume', T],
      ['consume', T],
      ['consume', T],
      ['consume', T],
      ['peek', T + 500],
      ['consume', T + 499],
    ]))
      expect(got).toEqual(want);
  });
  it('after a refund past its end, a clock stepped back finds no ban', () => {
    for (const [got, want] of replayed([
      ['consume', T],
      ['consume', T],
      ['consume', T],
      ['consume', T],
      ['refund', T + 500],
      ['consume', T + 499],
    ]))
      expect(got).toEqual(want);
  });
});

describe('concurrency leases decide as on the memory store', () => {
  const leaseOps = op('consume', 'consume', 'peek', 'release', 'release', 'reset');
  function replay(
    memory: RateLimiter<'sync'>,
    sqlite: RateLimiter<'sync'>,
    clock: ManualClock,
    start: number,
    steps: { op: string; dt: number; cost: number; key: number }[],
    prefix: string,
  ) {
    const instants = new Instants(start, EXPIRED_GRACE_MS);
    for (const [i, s] of steps.entries()) {
      clock.set(instants.next(s.dt));
      const key = `${prefix}:${s.key}`;
      if (s.op === 'release') {
        memory.release?.(key, s.cost);
        sqlite.release?.(key, s.cost);
      } else if (s.op === 'reset') {
        memory.reset(key);
        sqlite.reset(key);
      } else expect(sqlite[s.op as 'consume' | 'peek'](key, s.cost), `step ${i}`).toEqual(memory[s.op as 'consume' | 'peek'](key, s.cost));
    }
  }

  it('gives identical decisions through ConcurrencyLimiter: acquire, peek, release, reset', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), startInstant, history(leaseOps), (limit, start, steps) => {
        const clock = new ManualClock(start);
        const name = `cc${run++}`;
        replay(new ConcurrencyLimiter({ limit, clock, name }), new ConcurrencyLimiter({ limit, clock, name, store }), clock, start, steps, name);
      }),
      { numRuns: RUNS },
    );
    expect(failures).toEqual([]);
  });

  it('gives identical decisions for a composite of a lease and a rate, all or nothing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), specs['token-bucket'], startInstant, history(leaseOps), (limit, bucket, start, steps) => {
        const clock = new ManualClock(start);
        const name = `ccr${run++}`;
        const make = (on: Store<'sync'>) => new CompositeLimiter([new ConcurrencyLimiter({ limit, clock, name, store: on }), makeLimiter(bucket, on, clock, `${name}-rate`)]);
        replay(make(new MemoryStore()), make(store), clock, start, steps, name);
      }),
      { numRuns: RUNS },
    );
    expect(failures).toEqual([]);
  });
});

describe('reservations decide as on the memory store', () => {
  const reservationOf = (r: Reservation<'sync'>) => ({ ok: r.ok, delayMs: r.delayMs, at: r.at, decision: r.decision });
  // Small limits and slow refills, so that bookings queue behind one another and cancels have work to do.
  const small = fc.integer({ min: 1, max: 3 });
  const span = fc.integer({ min: 500, max: 5000 });
  const one = fc.oneof(
    fc.record({ algorithm: fc.constant('token-bucket' as const), capacity: small, refillPerSecond: fc.constantFrom(0.5, 1, 3, 7) }),
    fc.record({ algorithm: fc.constantFrom('sliding-window' as const, 'fixed-window' as const, 'sliding-log' as const), limit: small, windowMs: span }),
  ) as fc.Arbitrary<Spec>;
  const members = fc.oneof(
    one.map((s) => [s]),
    fc.array(one, { minLength: 2, maxLength: 3 }),
  );
  const reserveOps = op('reserve', 'reserve', 'reserve', 'reserve', 'reserve', 'bounded', 'cancel', 'cancel', 'consume');
  // Bookings queue when the clock barely moves between them.
  const soon = fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: 300 }), weight: 1 });
  const reserveHistory = fc.array(fc.record({ op: reserveOps, dt: soon, cost: fc.integer({ min: 1, max: 3 }), key: fc.constant(0) }), { minLength: 20, maxLength: 60 });
  let cancels = 0;

  it('books, cancels in any order and consumes alike, single limiters and composites', () => {
    fc.assert(
      fc.property(members, startInstant, reserveHistory, fc.integer({ min: 0, max: 5000 }), (m, start, steps, maxWaitMs) => {
        const clock = new ManualClock(start);
        const names = m.map((_, i) => `rs${run}-${i}`);
        run++;
        const make = (on: Store<'sync'>): RateLimiter<'sync'> => {
          const limiters = m.map((spec, i) => makeLimiter(spec, on, clock, names[i]));
          return limiters.length === 1 ? (limiters[0] as RateLimiter<'sync'>) : new CompositeLimiter(limiters);
        };
        const memory = make(new MemoryStore());
        const sqlite = make(store);
        const booked: [Reservation<'sync'>, Reservation<'sync'>][] = [];
        const instants = new Instants(start, EXPIRED_GRACE_MS);
        for (const [i, s] of steps.entries()) {
          clock.set(instants.next(s.dt));
          const key = `${names[0]}:${s.key}`;
          const where = `step ${i} (${s.op})`;
          if (s.op === 'cancel') {
            // One of the latest few: those are the bookings still ahead.
            const pair = booked.splice(Math.max(0, booked.length - 1 - (s.cost % 3)), 1)[0];
            if (pair === undefined) continue;
            const cancelled = pair[0].cancel();
            if (cancelled) cancels++;
            expect(pair[1].cancel(), where).toBe(cancelled);
          } else if (s.op === 'consume') {
            expect(sqlite.consume(key, s.cost), where).toEqual(memory.consume(key, s.cost));
          } else {
            const options = s.op === 'bounded' ? { maxWaitMs } : {};
            const pair: [Reservation<'sync'>, Reservation<'sync'>] = [reserve(memory, key, s.cost, options), reserve(sqlite, key, s.cost, options)];
            expect(reservationOf(pair[1]), where).toEqual(reservationOf(pair[0]));
            booked.push(pair);
          }
        }
      }),
      { numRuns: RUNS },
    );
    expect(cancels, 'cancels that gave units back').toBeGreaterThan(RUNS);
    expect(failures).toEqual([]);
  });
});
