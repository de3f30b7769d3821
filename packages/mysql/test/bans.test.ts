/**
 * Bans on a MySqlStore decide as on the memory store: random histories (fast-check) through core's
 * BanLimiter on both with one ManualClock (time: 'client'), every answer compared field for field:
 * consume, peek, refund (lifting a ban the refund makes needless) and reset, one call at a time and all
 * calls of a history in one batch. A mutant whose peek starts a ban fails the same property.
 */
import { BanLimiter, FixedWindowLimiter, ManualClock, MemoryStore, type Store } from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { EXPIRED_GRACE_MS, type FailureInfo, MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { Instants, startInstant } from '@ratekeeper/store-contract';
import { mutantBuild } from './support/mutant-builds.js';

const pool = createPool();
const TABLE = table('bans');
const store = new MySqlStore({ client: pool, table: TABLE, time: 'client' });
const failures: FailureInfo[] = [];
store.on('failure', (info) => failures.push(info));
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 25);
let run = 0;

afterAll(async () => {
  await dropTable(pool, TABLE).catch(() => undefined);
  await pool.end();
});

type BanStep = { op: 'consume' | 'peek' | 'refund' | 'reset'; dt: number; cost: number; key: number };
const steps = fc.array(
  fc.record({
    op: fc.constantFrom<BanStep['op']>('consume', 'consume', 'peek', 'refund', 'reset'),
    dt: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 }), fc.integer({ min: -2000, max: -1 })),
    cost: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 4 })),
    key: fc.integer({ min: 0, max: 1 }),
  }),
  { minLength: 1, maxLength: 40 },
);

async function replay(limit: number, windowMs: number, banMs: number, start: number, history: readonly BanStep[], together: boolean, on: Store<'async'>) {
  const clock = new ManualClock(start);
  const name = `ban${run++}`;
  const memory = new BanLimiter({ limiter: new FixedWindowLimiter({ limit, windowMs, store: new MemoryStore(), clock, name }), banMs });
  const mysql = new BanLimiter({ limiter: new FixedWindowLimiter({ limit, windowMs, store: on, clock, name }), banMs });
  const instants = new Instants(start, EXPIRED_GRACE_MS);
  const pending: Promise<unknown>[] = [];
  for (const [i, s] of history.entries()) {
    clock.set(instants.next(s.dt));
    const key = `${name}:${s.key}`;
    let check: Promise<unknown>;
    if (s.op === 'refund' || s.op === 'reset') {
      memory[s.op](key, s.cost);
      check = mysql[s.op](key, s.cost);
    } else {
      const want = memory[s.op](key, s.cost);
      check = mysql[s.op](key, s.cost).then((got) => expect(got, `step ${i} (${s.op} cost ${s.cost} at ${clock.now()})`).toEqual(want));
    }
    if (together) pending.push(check);
    else await check;
  }
  await Promise.all(pending);
}

describeMySql('bans decide as on the memory store', () => {
  const args = [fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1000, max: 5000 }), fc.integer({ min: 500, max: 8000 }), startInstant, steps, fc.boolean()] as const;

  it('gives identical decisions through BanLimiter: consume, peek, refund, reset', async () => {
    await fc.assert(
      fc.asyncProperty(...args, (limit, windowMs, banMs, start, history, together) => replay(limit, windowMs, banMs, start, history, together, store)),
      { numRuns: RUNS },
    );
    expect(failures).toEqual([]);
  });

  it('catches a store whose peek starts a ban', async () => {
    const { MySqlStore: Mutant } = (await import(mutantBuild('peek-bans'))) as { MySqlStore: typeof MySqlStore };
    const mutant = new Mutant({ client: pool, table: TABLE, time: 'client' });
    const history: BanStep[] = [
      { op: 'consume', dt: 0, cost: 1, key: 0 },
      { op: 'peek', dt: 0, cost: 1, key: 0 },
      { op: 'consume', dt: 2000, cost: 1, key: 0 },
    ];
    await expect(replay(1, 1000, 5000, 1_700_000_000_000, history, false, mutant)).rejects.toThrow(/step 2 \(consume/);
  });
});
