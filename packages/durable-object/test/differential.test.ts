/**
 * The object decides exactly as the memory store does: each scenario runs at fixed instants
 * (`time: 'client'`, a ManualClock) in a Worker on a DurableObjectStore, in workerd, and on Node on
 * a MemoryStore, and every step's figures must be identical (structured clone carries every double
 * exactly, Infinity included). Scenarios cover every algorithm, composites (a denial by one member
 * costs the others nothing), refunds, bans (and a refund lifting one), bookings and their cancel,
 * peek, allow and reset, the never-satisfiable cost, and keys UTF-8 would merge (lone surrogates). Steps run on several isolates in turn, so
 * the state they share is the object's. A store that spreads a key over objects differs (mutant).
 * (The store contract's random-history differential runs in ./store-contract.test.ts and
 * ./store-contract-workerd.test.ts; this file keeps the store inside Workers, across isolates.)
 */
import { ManualClock, MemoryStore } from '@ratekeeper/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Workerd, startWorkerd } from './support/harness.js';
import { type Scenario, type Step, type StepResult, limiterOf, runScenario } from './support/scenario.js';
import type { StoreKind } from './support/worker.js';

const T0 = 1_700_000_000_000;
const MIN = 60_000;

const steps = (rows: readonly (readonly [number, Step['do'], number?])[]): Step[] =>
  rows.map(([at, op, cost]) => ({ at, do: op, key: 'k', ...(cost === undefined ? {} : { cost }) }));
const BURSTY = steps([
  [0, 'consume'],
  [0, 'consume', 2],
  [10, 'consume'],
  [10, 'peek'],
  [500, 'consume', 3],
  [1_000, 'allow'],
  [1_001, 'consume'],
  [2_500, 'consume', 2],
  [2_500, 'consume', 9],
  [3_000, 'consume', 1],
]);

/** Keys a client could send that UTF-8 would merge (lone surrogates, and U+FFFD itself): each its own object. */
const HOSTILE = ['\ud800', '\udbff', '\ufffd', '\udc00x'];

const SCENARIOS: Record<string, Scenario> = {
  'hostile keys, each its own object': {
    limiters: [{ type: 'fixed-window', options: { limit: 3, windowMs: MIN } }],
    steps: HOSTILE.flatMap((key, i) => Array.from({ length: i + 1 }, (): Step => ({ at: 0, do: 'consume', key }))).concat(HOSTILE.map((key): Step => ({ at: 1, do: 'peek', key }))),
  },
  'token bucket': { limiters: [{ type: 'token-bucket', options: { capacity: 3, refillPerSecond: 1.5 } }], steps: BURSTY },
  gcra: { limiters: [{ type: 'gcra', options: { emissionIntervalMs: 333.25, burst: 3 } }], steps: BURSTY },
  'sliding window': { limiters: [{ type: 'sliding-window', options: { limit: 3, windowMs: 1_000 } }], steps: BURSTY },
  'fixed window': { limiters: [{ type: 'fixed-window', options: { limit: 3, windowMs: 1_000 } }], steps: BURSTY },
  'sliding log': { limiters: [{ type: 'sliding-log', options: { limit: 3, windowMs: 1_000 } }], steps: BURSTY },
  'composite, all or nothing': {
    limiters: [
      { type: 'token-bucket', options: { capacity: 5, refillPerSecond: 1, name: 'burst' } },
      { type: 'sliding-window', options: { limit: 2, windowMs: 1_000, name: 'steady' } },
    ],
    composite: true,
    steps: steps([
      [0, 'consume'],
      [0, 'consume'],
      [0, 'consume'],
      [0, 'peek'],
      [1_000, 'consume'],
      [1_000, 'consume', 6],
      [1_500, 'reserve'],
      [1_500, 'cancel'],
      [1_500, 'reserve'],
      [2_000, 'consume'],
    ]),
  },
  'refund, reset': {
    limiters: [{ type: 'fixed-window', options: { limit: 2, windowMs: MIN } }],
    steps: steps([
      [0, 'consume'],
      [0, 'consume'],
      [1, 'consume'],
      [2, 'refund'],
      [3, 'consume'],
      [4, 'refund', 5],
      [5, 'peek'],
      [6, 'reset'],
      [7, 'consume', 2],
    ]),
  },
  'ban, lifted by a refund': {
    limiters: [{ type: 'fixed-window', options: { limit: 2, windowMs: 15 * MIN, name: 'login' } }],
    banMs: 60 * MIN,
    steps: steps([
      [0, 'consume'],
      [1_000, 'consume'],
      [2_000, 'consume'],
      [3_000, 'consume'],
      [4_000, 'peek'],
      [5_000, 'refund'],
      [6_000, 'consume'],
      [7_000, 'consume'],
      [8_000, 'consume', 3],
      [70 * MIN, 'consume'],
    ]),
  },
  'bookings: queued in order, cancelled anywhere': {
    limiters: [{ type: 'token-bucket', options: { capacity: 1, refillPerSecond: 10 } }],
    steps: steps([
      [0, 'reserve'],
      [0, 'reserve'],
      [0, 'reserve'],
      [0, 'reserve'],
      [0, 'cancel'],
      [10, 'reserve'],
      [10, 'consume'],
      [100, 'reserve', 2],
    ]),
  },
};

let workerd: Workerd;
let run = 0;

/** onWorkerd runs each step as its own invocation, on isolates in turn, sharing only the object. */
async function onWorkerd(scenario: Scenario, kind: StoreKind = 'durable'): Promise<StepResult[]> {
  const prefix = `diff${run++}:`;
  const results: StepResult[] = [];
  // One invocation per run of steps up to a booking's cancel (a cancel needs its reservation's invocation).
  let from = 0;
  for (let i = 0; i < scenario.steps.length; i++) {
    const next = scenario.steps[i + 1];
    if (next?.do === 'cancel') continue;
    const part = { ...scenario, steps: scenario.steps.slice(from, i + 1) };
    const answer = await workerd.scenario(i % workerd.isolates, { prefix, store: { kind, options: { time: 'client' } }, start: T0, scenario: part });
    results.push(...answer.results);
    from = i + 1;
  }
  return results;
}

async function onMemory(scenario: Scenario): Promise<StepResult[]> {
  const clock = new ManualClock(T0);
  const limiter = limiterOf(scenario, new MemoryStore() as never, clock);
  return runScenario(scenario, limiter, (at) => clock.set(T0 + at));
}

describe('the object decides as the memory store, step for step', () => {
  beforeAll(async () => {
    workerd = await startWorkerd(3);
  });
  afterAll(async () => {
    await workerd?.dispose();
  });

  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    it(name, async () => {
      const want = await onMemory(scenario);
      expect(await onWorkerd(scenario)).toEqual(want);
    });
  }

  it('tells a store that spreads a key over objects from the real one (mutant)', async () => {
    const scenario = SCENARIOS['token bucket'] as Scenario;
    expect(await onWorkerd(scenario, 'split-key')).not.toEqual(await onMemory(scenario));
  });
});
