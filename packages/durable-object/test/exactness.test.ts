/**
 * Exactness in workerd: 2,000 concurrent decisions on one key from 16 Worker invocations spread over
 * 4 isolates (4 invocations of 125 concurrent consumes each, all in flight at once), a limit of 500,
 * default store options (the object's clock, batching on) → exactly 500 admitted, for every
 * algorithm and for a composite. The same check catches a store that decides in the isolate's memory
 * (each isolate admits its own 500) and one that spreads a hot key over objects (each shard admits
 * 500): test/mutants/isolate-memory.ts, split-key.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Workerd, startWorkerd } from './support/harness.js';
import type { Counted, LimiterSpec, Scenario } from './support/scenario.js';
import type { StoreKind } from './support/worker.js';

const LIMIT = 500;
const INVOCATIONS_PER_ISOLATE = 4;
const CONCURRENT = 125; // × 4 × 4 = 2,000
const HOUR = 3_600_000;
const MONTH = 30 * 24 * HOUR; // a fixed window this long is not crossed during a run

const SPECS: Record<string, readonly LimiterSpec[]> = {
  'token bucket': [{ type: 'token-bucket', options: { capacity: LIMIT, refillPerSecond: 1 / 3600 } }],
  gcra: [{ type: 'gcra', options: { emissionIntervalMs: HOUR, burst: LIMIT } }],
  'sliding window': [{ type: 'sliding-window', options: { limit: LIMIT, windowMs: MONTH } }],
  'fixed window': [{ type: 'fixed-window', options: { limit: LIMIT, windowMs: MONTH } }],
  'sliding log': [{ type: 'sliding-log', options: { limit: LIMIT, windowMs: HOUR } }],
};
const COMPOSITE: readonly LimiterSpec[] = [
  { type: 'token-bucket', options: { capacity: 2 * LIMIT, refillPerSecond: 1 / 3600, name: 'wide' } },
  { type: 'sliding-window', options: { limit: LIMIT, windowMs: MONTH, name: 'narrow' } },
];

let workerd: Workerd;
let run = 0;

/** burst fires every invocation at once and sums what they admitted. */
async function burst(kind: StoreKind, limiters: readonly LimiterSpec[], composite = false): Promise<Counted> {
  const prefix = `exact${run++}:`;
  const scenario: Scenario = { limiters, composite, steps: [{ do: 'consume', key: 'hot', times: CONCURRENT }] };
  const invocations = Array.from({ length: workerd.isolates * INVOCATIONS_PER_ISOLATE }, (_, i) => workerd.scenario(i % workerd.isolates, { prefix, store: { kind }, scenario }));
  const counts = (await Promise.all(invocations)).map((a) => a.results[0] as Counted);
  return counts.reduce((sum, c) => ({ allowed: sum.allowed + c.allowed, denied: sum.denied + c.denied, failed: sum.failed + c.failed }), { allowed: 0, denied: 0, failed: 0 });
}

describe('2,000 concurrent decisions from 16 invocations on 4 isolates, limit 500', () => {
  beforeAll(async () => {
    workerd = await startWorkerd(4);
  });
  afterAll(async () => {
    await workerd?.dispose();
  });

  for (const [name, limiters] of Object.entries(SPECS)) {
    it(`admits exactly 500: ${name}`, async () => {
      expect(await burst('durable', limiters)).toEqual({ allowed: LIMIT, denied: 4 * LIMIT - LIMIT, failed: 0 });
    });
  }

  it('admits exactly 500 through a composite, all or nothing (the wider member spent exactly 500 too)', async () => {
    expect(await burst('durable', COMPOSITE, true)).toEqual({ allowed: LIMIT, denied: 3 * LIMIT, failed: 0 });
  });

  it('catches a store that decides in each isolate’s memory (mutant): 4 × 500', async () => {
    expect(await burst('isolate-memory', SPECS['token bucket'] as LimiterSpec[])).toMatchObject({ allowed: 4 * LIMIT });
  });

  it('catches a store that spreads a hot key over objects (mutant): more than 500', async () => {
    const counted = await burst('split-key', SPECS['token bucket'] as LimiterSpec[]);
    expect(counted.allowed).toBeGreaterThan(LIMIT);
  });
});
