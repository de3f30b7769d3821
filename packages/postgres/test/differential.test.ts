/**
 * What PostgresStore adds to the store contract's differential (./store-contract.test.ts holds every
 * algorithm, composite, booking, ban and lease history to the memory store's, through both clients):
 * calls made in one turn, decided in one batch, decide as the same calls one by one AND really went in
 * batches (the store's counters show more than one call per batch); and a history fast-check once
 * found, in which a reset must empty the booking ledger too, replayed as the contract replays it.
 */
import { ManualClock, MemoryStore } from '@ratekeeper/core';
import { type BookingStep, DIFFERENTIAL_KEYS, type Spec, makeLimiter, replayBookings, specs, startInstant } from '@ratekeeper/store-contract';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { EXPIRED_GRACE_MS, PostgresStore } from '../src/index.js';
import { type Client, describeDb, dropTables, makeClient, uniqueTable } from './support/db.js';

const table = uniqueTable('diff');
const client: Client = makeClient('pg');
const store = new PostgresStore({ client: client.client as never, table, time: 'client' });
let names = 0;
/** fresh is a policy name no other history of this file used. */
const fresh = () => `diff${names++}`;

afterAll(async () => {
  await client.end();
  await dropTables(table);
});

describeDb('PostgresStore beyond the contract differential', () => {
  it('a reset empties the booking ledger too: the next booking goes at once (a history fast-check found)', async () => {
    const spec: Spec = { algorithm: 'token-bucket', capacity: 1, refillPerSecond: 50 };
    const history: BookingStep[] = [
      { op: 'reserve', dt: 1, cost: 1, key: 0, maxWaitMs: 0 },
      { op: 'reserve', dt: 0, cost: 1, key: 0, maxWaitMs: 20 },
      { op: 'reset', dt: 0, cost: 1, key: 0 },
      { op: 'reserve', dt: 0, cost: 1, key: 0, maxWaitMs: 1 },
    ];
    await replayBookings({ store, fresh, keys: DIFFERENTIAL_KEYS, graceMs: EXPIRED_GRACE_MS, marginMs: 0, together: false }, [spec], 1_577_836_800_000, history);
  });

  it('decides calls made in one turn (one batch) as the same calls one by one, in batches of more than one call', async () => {
    const before = { ...store.batching };
    await fc.assert(
      fc.asyncProperty(specs['sliding-log'], startInstant, fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 2, maxLength: 30 }), async (spec, start, costs) => {
        const clock = new ManualClock(start);
        const name = fresh();
        const memory = makeLimiter(spec, new MemoryStore(), clock, name);
        const postgres = makeLimiter(spec, store, clock, name);
        const together = await Promise.all(costs.map((cost) => postgres.consume('k', cost)));
        expect(together).toEqual(costs.map((cost) => memory.consume('k', cost)));
      }),
      { numRuns: 15 },
    );
    expect((store.batching.calls - before.calls) / (store.batching.batches - before.batches)).toBeGreaterThan(1.5);
  });
});
