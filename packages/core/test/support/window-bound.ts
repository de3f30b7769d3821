/**
 * neverMoreThanLimitPerWindow: on a clock that only moves forward, no fixed window aligned to a
 * multiple of W since the epoch admits more than L cost for one key. Written against a Subject so the
 * same check runs on the real limiters and on mutants.
 */
import fc from 'fast-check';
import { caseWithHistory } from './arbitraries.js';
import { expectFigures } from './figures.js';
import type { Case, Subject } from './subjects.js';

export function neverMoreThanLimitPerWindow(cases: fc.Arbitrary<Case>, subjectFor: (c: Case) => Subject) {
  return fc.property(caseWithHistory(cases, { keys: 2, maxLength: 80, oversize: true }), ({ c, start, moves }) => {
    const subject = subjectFor(c);
    const perWindow = new Map<string, number>();
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const d = subject.consume(move.key, now, move.cost);
      expectFigures(d, `step ${i}`);
      if (!d.allowed) continue;
      const window = `${move.key}@${Math.floor(now / c.scaleMs)}`;
      const count = (perWindow.get(window) ?? 0) + move.cost;
      if (count > c.limit) throw new Error(`step ${i}: window ${window} admitted ${count} > limit ${c.limit}`);
      perWindow.set(window, count);
    }
  });
}
