/**
 * Differential test: the memory store is the specification. The same random histories (fast-check)
 * run on a MemoryStore and on a SqliteStore with one ManualClock, and every decision must be identical,
 * field for field and bit for bit (-0 and fractional figures included): consume, peek, allow, reset
 * and refund, for each algorithm and for composites, on hostile keys. The store runs core's own steps
 * inside its transactions, so this holds the plumbing (state encoding, the held instant, composites'
 * all or nothing, refunds) to the memory store's behaviour. A store that keeps state in single
 * precision (the 'lossy-state' mutant build, test/support/mutant-builds.ts) must fail the same property.
 */
import { CompositeLimiter, ManualClock, MemoryStore, type RateLimiter, type Store } from '@ratekeeper/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPIRED_GRACE_MS, type FailureInfo, SqliteStore } from '../src/index.js';
import { tempDir } from './support/files.js';
import { mutantBuild } from './support/mutant-builds.js';
import { ALGORITHMS, Instants, type Spec, type Step, composites, makeLimiter, specs, startInstant, steps } from '@ratekeeper/store-contract';

const dir = tempDir();
const store = new SqliteStore({ path: dir.file() });
const failures: FailureInfo[] = [];
store.on('failure', (info) => failures.push(info));
let run = 0;
/** RATEKEEPER_DIFF_RUNS raises the number of histories per property. */
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 40);
/** Keys a client could send: empty, a lone surrogate, longer than the stored-as-is bound, differing only at the end. */
const HOSTILE = ['', '\ud800', `${'k'.repeat(300)}a`, `${'k'.repeat(300)}b`, 'é\u0000\uffff'];

afterAll(() => {
  store.close();
  dir.remove();
});

function limiterOf<M extends 'sync'>(members: readonly Spec[], on: Store<M>, clock: ManualClock, names: readonly string[]): RateLimiter<M> {
  const limiters = members.map((spec, i) => makeLimiter(spec, on, clock, names[i]));
  return limiters.length === 1 ? (limiters[0] as RateLimiter<M>) : (new CompositeLimiter(limiters) as RateLimiter<M>);
}

function replay(members: readonly Spec[], start: number, history: readonly Step[], on: Store<'sync'> = store): void {
  const clock = new ManualClock(start);
  const names = members.map((_, i) => `run${run}-${i}`);
  const memory = limiterOf(members, new MemoryStore(), clock, names);
  const sqlite = limiterOf(members, on, clock, names);
  const prefix = `run${run++}:`;
  const instants = new Instants(start, EXPIRED_GRACE_MS);
  for (const [i, step] of history.entries()) {
    clock.set(instants.next(step.dt));
    const key = `${prefix}${HOSTILE[step.key % HOSTILE.length]}`;
    const where = `step ${i} (${step.op} cost ${step.cost} at ${clock.now()})`;
    if (step.op === 'reset' || step.op === 'refund') {
      memory[step.op]?.(key, step.cost);
      sqlite[step.op]?.(key, step.cost);
    } else if (step.op === 'allow') {
      expect(sqlite.allow(key, step.cost), where).toBe(memory.allow(key, step.cost));
    } else {
      expect(sqlite[step.op](key, step.cost), where).toEqual(memory[step.op](key, step.cost));
    }
  }
  expect(failures).toEqual([]);
}

function property(members: fc.Arbitrary<Spec[]>, on?: Store<'sync'>) {
  return fc.property(
    members.chain((m) => fc.tuple(fc.constant(m), startInstant, steps(m, HOSTILE.length))),
    ([m, start, history]) => replay(m, start, history, on),
  );
}

describe('SqliteStore decides exactly as the memory store', () => {
  for (const algorithm of ALGORITHMS) {
    it(`gives identical ${algorithm} decisions, refunds and resets included`, () => {
      fc.assert(property(specs[algorithm].map((s) => [s as Spec])), { numRuns: RUNS });
    });
  }

  it('gives identical composite decisions, all or nothing', () => {
    fc.assert(property(composites), { numRuns: RUNS });
  });

  it('catches a store that keeps state in single precision', async () => {
    const { SqliteStore: Lossy } = (await import(mutantBuild('lossy-state'))) as { SqliteStore: typeof SqliteStore };
    const lossy = new Lossy({ path: dir.file() });
    expect(() =>
      fc.assert(
        property(
          specs['token-bucket'].map((s) => [s as Spec]),
          lossy,
        ),
        { numRuns: 200 },
      ),
    ).toThrow();
  });
});
