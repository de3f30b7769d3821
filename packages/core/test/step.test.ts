/**
 * `step` is the pure form of each algorithm, `(state | undefined, now, cost, policy) -> { decision,
 * nextState, ttlMs }`, the specification a remote store ports. Folding it over a history gives exactly
 * the memory store's decisions; a denial hands back the input state itself with ttlMs 0; an admission's
 * ttlMs is the time until the new state is empty, which is its resetAfterMs.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { type Algorithm, type Decision, ManualClock, type Policy, step } from '../src/index.js';
import { concurrency, firstRequestWindow, fixedWindow, slidingLog, slidingWindow, tokenBucket } from '../src/store/index.js';
import { anyCase, caseWithHistory } from './support/arbitraries.js';
import { realSubject } from './support/subjects.js';

const algorithms: Record<Exclude<Policy['algorithm'], 'sliding-log'>, Algorithm<Policy>> = {
  'token-bucket': tokenBucket as Algorithm<Policy>,
  'sliding-window': slidingWindow as Algorithm<Policy>,
  'fixed-window': fixedWindow as Algorithm<Policy>,
  'first-request-window': firstRequestWindow as Algorithm<Policy>,
  concurrency: concurrency as Algorithm<Policy>,
};
/** The sliding log's step is made for its limit (the ring's length is its state size). */
const algorithmOf = (p: Policy) => (p.algorithm === 'sliding-log' ? (slidingLog(p.limit) as Algorithm<Policy>) : algorithms[p.algorithm]);
const figures = (d: Decision) => `${d.allowed}/${d.remaining}/${d.retryAfterMs}/${d.resetAfterMs}`;

describe('step', () => {
  it('folded over a history decides exactly as the memory store, and keeps the state on a denial', () => {
    fc.assert(
      fc.property(caseWithHistory(anyCase, { keys: 2, maxLength: 50, oversize: true }), ({ c, start, moves }) => {
        const policy = c.create(new ManualClock()).policy;
        const algorithm = algorithmOf(policy);
        const store = realSubject(c);
        const states = new Map<string, readonly number[] | undefined>();
        let now = start;
        for (const [i, move] of moves.entries()) {
          now += move.dt;
          const before = states.get(move.key);
          const s = step(algorithm, before, now, move.cost, policy);
          const want = store.consume(move.key, now, move.cost);
          if (figures(s.decision) !== figures(want)) throw new Error(`step ${i}: step ${figures(s.decision)}, store ${figures(want)}`);
          if (!s.decision.allowed && (s.nextState !== before || s.ttlMs !== 0)) throw new Error(`step ${i}: a denial changed the state`);
          if (s.decision.allowed && s.ttlMs !== s.decision.resetAfterMs) throw new Error(`step ${i}: ttlMs ${s.ttlMs}, resetAfterMs ${s.decision.resetAfterMs}`);
          if (s.decision.policy !== policy) throw new Error(`step ${i}: the decision lost its policy`);
          states.set(move.key, s.nextState);
        }
      }),
      { numRuns: 200 },
    );
  });
});
