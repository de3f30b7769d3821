/**
 * MemoryStore properties over random histories, for every algorithm:
 * - eviction order: the store holds exactly the keys a slow reference model of the policy holds, and
 *   counts exactly its live evictions;
 * - dropping empty state changes no decision. Stated exactly: on a clock that never goes back, a
 *   limiter on a store of 1 to 3 keys decides every request exactly as the same limiter on a store
 *   that never fills, up to the first live eviction (which resets a key, by design). The histories
 *   make the small store drop empty state often; the test counts how often, so it cannot pass vacuously.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Algorithm, type Decision, ManualClock, type MemoryBinding, MemoryStore, type Policy } from '../src/index.js';
import { earlyEmptySlidingWindow } from './mutants/window-defects.js';
import { anyCase, caseWithHistory, slidingWindowCases } from './support/arbitraries.js';
import type { Case } from './support/subjects.js';

const strip = (d: Decision) => ({ allowed: d.allowed, remaining: d.remaining, retryAfterMs: d.retryAfterMs, resetAfterMs: d.resetAfterMs });

function bind(c: Case, maxKeys: number, algorithm?: Algorithm<Policy>): MemoryBinding {
  const limiter = c.create(new ManualClock(), new MemoryStore({ maxKeys }));
  if (algorithm === undefined) return limiter.binding as MemoryBinding;
  return new MemoryStore({ maxKeys }).bind(algorithm, limiter.policy);
}

/**
 * TableModel is the eviction policy written the slow, obvious way: an insertion-ordered list of held
 * keys with their empty instants. Inserting into a full table drops every empty key, then evicts the
 * live keys nearest to empty (the oldest first among equals) until maxKeys/32 (at least 1) are free.
 */
class TableModel {
  readonly held: { key: string; emptyAt: number }[] = [];
  evictions = 0;
  constructor(readonly maxKeys: number) {}

  admitted(key: string, now: number, emptyAt: number): void {
    const entry = this.held.find((e) => e.key === key);
    if (entry !== undefined) {
      entry.emptyAt = emptyAt;
      return;
    }
    if (this.held.length >= this.maxKeys) this.#sweep(now);
    this.held.push({ key, emptyAt });
  }

  #sweep(now: number): void {
    const before = this.held.length;
    this.#keep((e) => e.emptyAt > now);
    const wanted = Math.max(1, this.maxKeys >> 5) - (before - this.held.length);
    if (wanted <= 0) return;
    const doomed = [...this.held].sort((a, b) => a.emptyAt - b.emptyAt).slice(0, wanted); // stable: oldest first
    this.#keep((e) => !doomed.includes(e));
    this.evictions += doomed.length;
  }

  #keep(predicate: (e: { key: string; emptyAt: number }) => boolean): void {
    const kept = this.held.filter(predicate);
    this.held.splice(0, this.held.length, ...kept);
  }
}

describe('eviction order', () => {
  it('matches the model: empty keys dropped first, then the live keys nearest to empty, oldest first among equals', () => {
    const arb = fc.record({ h: caseWithHistory(anyCase, { keys: 8, maxLength: 80 }), maxKeys: fc.integer({ min: 1, max: 6 }) });
    fc.assert(
      fc.property(arb, ({ h: { c, start, moves }, maxKeys }) => {
        const table = bind(c, maxKeys);
        const fresh = bind(c, 1);
        const model = new TableModel(maxKeys);
        let now = start;
        for (const [i, move] of moves.entries()) {
          now += move.dt;
          const d = table.consume(move.key, now, move.cost);
          if (d.allowed) model.admitted(move.key, now, now + d.resetAfterMs);
          expect([table.size, table.evictions], `step ${i}: size and evictions`).toEqual([model.held.length, model.evictions]);
          for (const key of ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']) {
            const liveInModel = model.held.some((e) => e.key === key && e.emptyAt > now);
            const looksFresh = JSON.stringify(strip(table.peek(key, now, 1))) === JSON.stringify(strip(fresh.peek(key, now, 1)));
            if (liveInModel === looksFresh) throw new Error(`step ${i} at ${now}: ${key} is ${liveInModel ? 'live' : 'not held or empty'} in the model, but the store ${looksFresh ? 'has no state for it' : 'holds state'}`);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

/** dropsChangeNothing compares a small store (running `algorithm`, by default the real one) with a large one. */
function dropsChangeNothing(cases: fc.Arbitrary<Case>, algorithm: (c: Case) => Algorithm<Policy> | undefined, counter: { drops: number }) {
  const arb = fc.record({ h: caseWithHistory(cases, { keys: 5, maxLength: 60 }), maxKeys: fc.integer({ min: 1, max: 3 }) });
  return fc.property(arb, ({ h: { c, start, moves }, maxKeys }) => {
    const small = bind(c, maxKeys, algorithm(c));
    const large = bind(c, 1_000_000);
    const seen = new Set<string>();
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const got = small.consume(move.key, now, move.cost);
      if (small.evictions > 0) return; // a live eviction resets a key by design: compare no further
      const want = large.consume(move.key, now, move.cost);
      if (JSON.stringify(strip(got)) !== JSON.stringify(strip(want))) {
        throw new Error(`step ${i} key ${move.key} at ${now}: small store ${JSON.stringify(strip(got))}, large store ${JSON.stringify(strip(want))}`);
      }
      if (want.allowed) seen.add(move.key);
      if (small.size < seen.size) counter.drops++;
    }
  });
}

describe('dropping empty state', () => {
  it('changes no decision: a store of 1 to 3 keys decides as one that never fills, until it evicts a live key', () => {
    const counter = { drops: 0 };
    fc.assert(dropsChangeNothing(anyCase, () => undefined, counter), { numRuns: 300 });
    expect(counter.drops, 'steps decided after the small store had dropped empty state').toBeGreaterThan(100);
  });

  it('catches a sliding window that calls a key empty one window early (mutant)', () => {
    const mutant = () => earlyEmptySlidingWindow as Algorithm<Policy>;
    expect(fc.check(dropsChangeNothing(slidingWindowCases, mutant, { drops: 0 }), { numRuns: 300 }).failed).toBe(true);
  });
});
