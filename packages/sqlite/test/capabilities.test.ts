/**
 * What the shared differential (the store contract suite's, ./store-contract.test.ts) does not replay
 * on a SqliteStore: a composite of a concurrency lease and a rate limit, all or nothing in one
 * transaction (acquire, peek, release and reset through it, every answer compared with the memory
 * store's), and two ban histories fast-check once found, in which an ended ban must be dropped when
 * seen as the memory store drops it.
 */
import { BanLimiter, CompositeLimiter, ConcurrencyLimiter, FixedWindowLimiter, ManualClock, MemoryStore, type RateLimiter, type Store } from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPIRED_GRACE_MS, type FailureInfo, SqliteStore } from '../src/index.js';
import { tempDir } from './support/files.js';
import { Instants, makeLimiter, specs, startInstant } from '@ratekeeper/store-contract';

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

describe('a composite of a concurrency lease and a rate decides as on the memory store', () => {
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
