/**
 * A denial changes no state: what `peek` reports for the key (several costs, now and later) is
 * identical before and after a denied consume, for every algorithm and for composites; and a consume
 * that was denied reports exactly what a peek just before it reported. A cost above the limit is
 * denied as never satisfiable (retryAfterMs Infinity) and changes nothing either.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Decision, ManualClock, TokenBucketLimiter, neverSatisfiable } from '../src/index.js';
import { debitOnDenyBucket } from './mutants/debit-on-deny-bucket.js';
import { anyTarget, startInstant, targetWithHistory, tokenBucketCases } from './support/arbitraries.js';
import { type Subject, type Target, single } from './support/subjects.js';

const figures = (d: Decision) => `${d.allowed}/${d.remaining}/${d.retryAfterMs}/${d.resetAfterMs}`;

/** probe is everything peek says about `key` around `now`: the observable state of the key. */
function probe(subject: Subject, t: Target, key: string, now: number, cost: number): string {
  let seen = '';
  for (const at of [now, now + 1, now + Math.ceil(t.scaleMs / 2), now + t.scaleMs]) {
    for (const c of [1, cost, t.limit]) seen += `${figures(subject.peek(key, at, c))} `;
  }
  return seen;
}

function denialChangesNothing(targets: fc.Arbitrary<Target>) {
  return fc.property(targetWithHistory(targets, { keys: 2, maxLength: 40, oversize: true }), ({ t, start, moves }) => {
    const subject = t.make();
    let now = start;
    for (const [i, move] of moves.entries()) {
      now += move.dt;
      const before = probe(subject, t, move.key, now, move.cost);
      const other = probe(subject, t, move.key === 'k0' ? 'k1' : 'k0', now, 1);
      const peeked = figures(subject.peek(move.key, now, move.cost));
      const d = subject.consume(move.key, now, move.cost);
      if (figures(d) !== peeked) throw new Error(`step ${i}: consume decided ${figures(d)}, the peek before it ${peeked}`);
      if (d.allowed) continue;
      const after = probe(subject, t, move.key, now, move.cost);
      if (after !== before) throw new Error(`step ${i}: a denial at ${now} changed the key:\n  before ${before}\n  after  ${after}`);
      if (probe(subject, t, move.key === 'k0' ? 'k1' : 'k0', now, 1) !== other) throw new Error(`step ${i}: a denial changed another key`);
    }
  });
}

describe('a denial changes no state', () => {
  it('peek reports the same before and after every denied consume, for every algorithm and composite', () => {
    fc.assert(denialChangesNothing(anyTarget), { numRuns: 300 });
  });

  it('a never-satisfiable cost is denied with retryAfterMs Infinity and changes nothing', () => {
    fc.assert(
      fc.property(targetWithHistory(anyTarget, { maxLength: 20 }), fc.integer({ min: 1, max: 1000 }), ({ t, start, moves }, extra) => {
        const subject = t.make();
        let now = start;
        for (const move of moves) subject.consume(move.key, (now += move.dt), move.cost);
        const before = probe(subject, t, 'k0', now, 1);
        const d = subject.consume('k0', now, t.limit + extra);
        expect(d.allowed).toBe(false);
        expect(d.retryAfterMs).toBe(Infinity);
        expect(neverSatisfiable(d)).toBe(true);
        expect(probe(subject, t, 'k0', now, 1)).toBe(before);
      }),
    );
  });

  it('a never-satisfiable cost on a fresh token bucket reports the full bucket and no reset', () => {
    fc.assert(
      fc.property(tokenBucketCases, startInstant, (c, now) => {
        const clock = new ManualClock(now);
        const limiter = c.create(clock) as TokenBucketLimiter;
        expect(limiter.consume('k', c.limit + 1)).toMatchObject({ allowed: false, remaining: c.limit, retryAfterMs: Infinity, resetAfterMs: 0 });
        expect(limiter.peek('k', c.limit)).toMatchObject({ allowed: true, remaining: 0 });
      }),
    );
  });

  it('catches a bucket that takes the tokens before checking and keeps them on a denial (mutant)', () => {
    const mutant = tokenBucketCases.map((c) => single(c, (x) => debitOnDenyBucket((x.create(new ManualClock()) as TokenBucketLimiter).policy)));
    expect(fc.check(denialChangesNothing(mutant), { numRuns: 300 }).failed).toBe(true);
  });
});
