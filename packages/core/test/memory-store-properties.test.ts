/**
 * MemoryStore properties over random histories, for every algorithm:
 * - eviction order, per algorithm: the store holds exactly the keys a slow reference model of the
 *   policy holds (the most room evicted first: the lowest fill, computed from each algorithm's
 *   definition over the admissions, then the nearest empty instant, then the oldest), and counts
 *   exactly its live evictions; an eviction that ranks by the empty instant alone is caught;
 * - dropping empty state changes no decision. Stated exactly: on a clock that never goes back, a
 *   limiter on a store of 1 to 3 keys decides every request exactly as the same limiter on a store
 *   that never fills, up to the first live eviction (which resets a key, by design). The histories
 *   make the small store drop empty state often; the test counts how often, so it cannot pass vacuously.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Algorithm, type Decision, ManualClock, MemoryStore, type Policy } from '../src/index.js';
import { fixedWindow, type MemoryBinding, slidingWindow, tokenBucket } from '../src/store/index.js';
import { emptyInstantOnly } from './mutants/empty-instant-eviction.js';
import { earlyEmptySlidingWindow } from './mutants/window-defects.js';
import { anyCase, caseWithHistory, fixedWindowCases, slidingLogCases, slidingWindowCases, tokenBucketCases } from './support/arbitraries.js';
import type { Case } from './support/subjects.js';

const strip = (d: Decision) => ({ allowed: d.allowed, remaining: d.remaining, retryAfterMs: d.retryAfterMs, resetAfterMs: d.resetAfterMs });

/** algorithmOf is the real algorithm of a case's limiter. */
function algorithmOf(c: Case): Algorithm<Policy> {
  const name = c.create(new ManualClock()).policy.algorithm;
  return (name === 'token-bucket' ? tokenBucket : name === 'sliding-window' ? slidingWindow : fixedWindow) as Algorithm<Policy>;
}

function bind(c: Case, maxKeys: number, algorithm?: Algorithm<Policy>): MemoryBinding {
  const limiter = c.create(new ManualClock(), new MemoryStore({ maxKeys }));
  if (algorithm === undefined) return limiter.binding as MemoryBinding;
  return new MemoryStore({ maxKeys }).bind(algorithm, limiter.policy);
}

/** An admission the model remembers: when, and how much. */
interface Admission {
  readonly at: number;
  readonly cost: number;
}

/**
 * referenceFill is the fraction of the limit a key holds at `now`, written from each algorithm's
 * definition over the key's admissions since it was (re)inserted, not from its stored state.
 */
function referenceFill(policy: Policy, admitted: readonly Admission[], now: number): number {
  if (policy.algorithm === 'token-bucket') {
    // GCRA: each admission moves the full-again instant to max(it, now) + cost (token clock); the
    // tokens taken at `now` are what remains of it after now, capped at the capacity.
    let tat = -Infinity;
    for (const a of admitted) tat = Math.max(tat, a.at / policy.intervalMs) + a.cost;
    const u = now / policy.intervalMs;
    const t = Math.max(u, tat - policy.capacity);
    return tat > t ? (tat - t) / policy.capacity : 0;
  }
  const W = policy.windowMs;
  // Sliding log: the units admitted less than W ago.
  if (policy.algorithm === 'sliding-log') return admitted.filter((a) => a.at + W > now).reduce((n, a) => n + a.cost, 0) / policy.limit;
  const start = Math.floor(now / W) * W;
  const sum = (from: number) => admitted.filter((a) => a.at >= from && a.at < from + W).reduce((n, a) => n + a.cost, 0);
  if (policy.algorithm === 'fixed-window') return sum(start) / policy.limit;
  return (sum(start - W) * (W - (now - start)) + sum(start) * W) / (policy.limit * W);
}

interface Entry {
  readonly key: string;
  emptyAt: number;
  readonly admitted: Admission[];
}

/**
 * TableModel is the eviction policy written the slow, obvious way: an insertion-ordered list of held
 * keys with their empty instants and admissions. Inserting into a full table drops every empty key,
 * then evicts the live keys with the most room (the lowest fill, then the nearest empty instant, then
 * the oldest) until maxKeys/32 (at least 1) are free.
 */
class TableModel {
  readonly held: Entry[] = [];
  evictions = 0;
  constructor(
    readonly policy: Policy,
    readonly maxKeys: number,
  ) {}

  admitted(key: string, now: number, cost: number, emptyAt: number): void {
    const entry = this.held.find((e) => e.key === key);
    if (entry !== undefined) {
      entry.emptyAt = emptyAt;
      entry.admitted.push({ at: now, cost });
      return;
    }
    if (this.held.length >= this.maxKeys) this.#sweep(now);
    this.held.push({ key, emptyAt, admitted: [{ at: now, cost }] });
  }

  #sweep(now: number): void {
    const before = this.held.length;
    this.#keep((e) => e.emptyAt > now);
    const wanted = Math.max(1, this.maxKeys >> 5) - (before - this.held.length);
    if (wanted <= 0) return;
    const ranked = this.held.map((e, age) => ({ e, age, fill: referenceFill(this.policy, e.admitted, now) }));
    ranked.sort((a, b) => a.fill - b.fill || a.e.emptyAt - b.e.emptyAt || a.age - b.age);
    const doomed = ranked.slice(0, wanted).map((r) => r.e);
    this.#keep((e) => !doomed.includes(e));
    this.evictions += doomed.length;
  }

  #keep(predicate: (e: Entry) => boolean): void {
    const kept = this.held.filter(predicate);
    this.held.splice(0, this.held.length, ...kept);
  }
}

/**
 * matchesModel plays a random history on a small table (bound with `algorithm`, by default the real
 * one) and requires, after every step, the model's size, live evictions and set of live keys.
 */
function matchesModel(cases: fc.Arbitrary<Case>, algorithm: (c: Case) => Algorithm<Policy> | undefined) {
  const arb = fc.record({ h: caseWithHistory(cases, { keys: 8, maxLength: 80 }), maxKeys: fc.integer({ min: 1, max: 6 }) });
  return fc.property(arb, ({ h: { c, start, moves }, maxKeys }) => {
    const table = bind(c, maxKeys, algorithm(c));
    const fresh = bind(c, 1);
    const model = new TableModel(c.create(new ManualClock()).policy, maxKeys);
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const d = table.consume(move.key, now, move.cost);
      if (d.allowed) model.admitted(move.key, now, move.cost, now + d.resetAfterMs);
      expect([table.size, table.evictions], `step ${i}: size and evictions`).toEqual([model.held.length, model.evictions]);
      for (const key of ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']) {
        const liveInModel = model.held.some((e) => e.key === key && e.emptyAt > now);
        const looksFresh = JSON.stringify(strip(table.peek(key, now, 1))) === JSON.stringify(strip(fresh.peek(key, now, 1)));
        if (liveInModel === looksFresh)
          throw new Error(
            `step ${i} at ${now}: ${key} is ${liveInModel ? 'live' : 'not held or empty'} in the model, but the store ${looksFresh ? 'has no state for it' : 'holds state'}`,
          );
      }
    }
  });
}

describe('eviction order', () => {
  it.each([
    ['token bucket', tokenBucketCases],
    ['sliding window', slidingWindowCases],
    ['fixed window', fixedWindowCases],
    ['sliding log', slidingLogCases],
  ])('matches the model for the %s: empty keys first, then the most room (fill, empty instant, age)', (_, cases) => {
    fc.assert(
      matchesModel(cases, () => undefined),
      { numRuns: 200 },
    );
  });

  it.each([
    ['sliding window', slidingWindowCases],
    ['fixed window', fixedWindowCases],
  ])('catches, for the %s, an eviction that ranks by the empty instant alone (mutant)', (_, cases) => {
    const mutant = (c: Case) => emptyInstantOnly(algorithmOf(c));
    expect(fc.check(matchesModel(cases, mutant), { numRuns: 200 }).failed).toBe(true);
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
    fc.assert(
      dropsChangeNothing(anyCase, () => undefined, counter),
      { numRuns: 300 },
    );
    expect(counter.drops, 'steps decided after the small store had dropped empty state').toBeGreaterThan(100);
  });

  it('catches a sliding window that calls a key empty one window early (mutant)', () => {
    const mutant = () => earlyEmptySlidingWindow as Algorithm<Policy>;
    expect(fc.check(dropsChangeNothing(slidingWindowCases, mutant, { drops: 0 }), { numRuns: 300 }).failed).toBe(true);
  });
});
