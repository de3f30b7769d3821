/**
 * allow() is consume() answering only the verdict. Its allocation-free path is separate code (the
 * memory binding's evaluate/commit without a Decision, and allowAll for composites), so it is checked
 * for behaviour here: over random histories, allow on one limiter and consume on an identical one give
 * the same verdicts and leave the same state. That allow allocates nothing is shown by the benchmark.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../src/index.js';
import { anyTarget, targetWithHistory } from './support/arbitraries.js';
import type { Subject, Target } from './support/subjects.js';

const figures = (d: Decision) => `${d.allowed}/${d.remaining}/${d.retryAfterMs}/${d.resetAfterMs}`;

function allowAgreesWithConsume(targets: fc.Arbitrary<Target>, allowOf: (s: Subject) => Subject['allow'] = (s) => s.allow) {
  return fc.property(targetWithHistory(targets, { keys: 2, maxLength: 60, oversize: true }), ({ t, start, moves }) => {
    const viaAllow = t.make();
    const viaConsume = t.make();
    const allow = allowOf(viaAllow);
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const verdict = allow(move.key, now, move.cost);
      const decided = viaConsume.consume(move.key, now, move.cost).allowed;
      if (verdict !== decided) throw new Error(`step ${i}: allow said ${verdict}, consume ${decided}`);
      for (const key of ['k0', 'k1']) {
        const [a, c] = [figures(viaAllow.peek(key, now, 1)), figures(viaConsume.peek(key, now, 1))];
        if (a !== c) throw new Error(`step ${i}: ${key} after allow ${a}, after consume ${c}`);
      }
    }
  });
}

describe('allow', () => {
  it('gives the verdict consume gives and records the same, for every algorithm and composite', () => {
    fc.assert(allowAgreesWithConsume(anyTarget), { numRuns: 300 });
  });

  it('catches an allow that answers from a peek and records nothing (mutant)', () => {
    const peeking =
      (s: Subject): Subject['allow'] =>
      (key, now, cost) =>
        s.peek(key, now, cost).allowed;
    expect(fc.check(allowAgreesWithConsume(anyTarget, peeking)).failed).toBe(true);
  });
});
