/**
 * State across restarts: workerd restarted (every object evicted at once, as idleness, a deploy or a
 * host move does to one) keeps what the objects stored, so a key's window stays spent and its ban
 * stands, to the millisecond; and a booking made before the restart can still be cancelled, by the
 * store that made it (in Node here: a Worker's isolate would not outlive workerd's restart), giving
 * its instant to the next booking exactly as the memory store does (booking ledgers are rows the
 * object stores). An object that keeps its rows in memory only (ForgetfulObject, mutant) forgets all
 * three, and the same checks catch it.
 */
import { ManualClock, MemoryStore, type Store, TokenBucketLimiter, reserve } from '@ratekeeper/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableObjectStore } from '../src/durable-object-store.js';
import { type Workerd, startWorkerd } from './support/harness.js';
import type { Scenario, StepResult } from './support/scenario.js';

const HOUR_MS = 3_600_000;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % HOUR_MS); // a fixed window starts here
const HOUR = HOUR_MS;
const LOGIN: Omit<Scenario, 'steps'> = { limiters: [{ type: 'fixed-window', options: { limit: 2, windowMs: HOUR, name: 'login' } }], banMs: HOUR };
const WINDOW: Omit<Scenario, 'steps'> = { limiters: [{ type: 'fixed-window', options: { limit: 2, windowMs: HOUR, name: 'window' } }] };

let workerd: Workerd;
let run = 0;

/** beforeAndAfter spends a login key to a ban and a window key to its limit, restarts workerd, and asks again. */
async function beforeAndAfter(namespace: string): Promise<{ before: StepResult[]; after: StepResult[] }> {
  const prefix = `restart${run++}:`;
  const ask = (scenario: Scenario) => workerd.scenario(0, { prefix, store: { kind: 'durable', namespace, options: { time: 'client' } }, start: T0, scenario });
  const spend = (at: number) => [0, 1, 2].map(() => ({ at, do: 'consume', key: 'k' }) as const);
  const before = [...(await ask({ ...LOGIN, steps: spend(0) })).results, ...(await ask({ ...WINDOW, steps: spend(0) })).results];
  await workerd.restart();
  const after = [
    ...(await ask({ ...LOGIN, steps: [{ at: 1_000, do: 'consume', key: 'k' }] })).results,
    ...(await ask({ ...WINDOW, steps: [{ at: 1_000, do: 'consume', key: 'k' }] })).results,
  ];
  return { before, after };
}

describe('a restarted object remembers its key', () => {
  beforeAll(async () => {
    workerd = await startWorkerd(1);
  });
  afterAll(async () => {
    await workerd?.dispose();
  });

  it('keeps a ban and a spent window across a restart', async () => {
    const { before, after } = await beforeAndAfter('LIMITS');
    expect(before.map((r) => (r as unknown[])[0])).toEqual([true, true, false, true, true, false]);
    expect(after).toEqual([
      [false, 0, HOUR - 1_000, HOUR - 1_000, null], // still banned, to the millisecond
      [false, 0, HOUR - 1_000, HOUR - 1_000, null], // the window still spent
    ]);
  });

  it('catches an object that keeps its state in memory only (mutant)', async () => {
    const { after } = await beforeAndAfter('FORGETFUL');
    expect(after.map((r) => (r as unknown[])[0])).toEqual([true, true]);
  });

  it('cancels a booking made before a restart, as the memory store does', async () => {
    const want = await bookRestartCancel(new MemoryStore() as Store, async () => {});
    expect(want).toEqual({ booked: [0, 1_000], cancelled: true, next: 990 });
    expect(await bookRestartCancel(new DurableObjectStore({ namespace: workerd.namespace('LIMITS'), prefix: `book${run++}:`, time: 'client' }))).toEqual(want);
  });

  it('catches an object that keeps its ledgers in memory only (mutant)', async () => {
    const store = new DurableObjectStore({ namespace: workerd.namespace('FORGETFUL'), prefix: `book${run++}:`, time: 'client' });
    expect((await bookRestartCancel(store)).cancelled).toBe(false);
  });
});

/**
 * bookRestartCancel books twice on a bucket of one (the second waits a second), restarts, cancels the
 * second 10 ms later and books again: what each booking waited, and whether the cancel gave back.
 */
async function bookRestartCancel(store: Store, restart = () => workerd.restart()) {
  const clock = new ManualClock(T0);
  const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, name: 'booked', store, clock });
  const booked = [await reserve(limiter, 'k'), await reserve(limiter, 'k')];
  await restart();
  clock.set(T0 + 10);
  const cancelled = await booked[1]?.cancel();
  return { booked: booked.map((b) => b.delayMs), cancelled, next: (await reserve(limiter, 'k')).delayMs };
}
