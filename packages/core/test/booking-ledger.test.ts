/**
 * The lemma the booking ledger rests on (memory-ledger.ts), against the pure steps of each algorithm
 * (token bucket, which GCRA is; sliding window; fixed window; sliding log): take any sequence of
 * requests the step admits at their instants, cancel any of them, and replay the rest from the start
 * at their own instants. Every one is admitted again (so the bookings behind a cancel keep their
 * instants), and requests then booked on the replayed state at the first instant it admits, no earlier
 * than the last booking (first come, first served), keep the policy's bound over every interval,
 * counting every request that really goes:
 *   token bucket  at most C + (t2 − t1) / intervalMs cost in any [t1, t2];
 *   fixed window, sliding window  at most L in any fixed window;
 *   sliding log   at most L in any (t − W, t].
 * The shortcut a cancel is tempted by, the algorithm's refund of the cancelled cost on the final state
 * (mutant), breaks that bound, and the same property catches it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Algorithm, ManualClock, type Policy, type SlidingLogPolicy, type TokenBucketPolicy, step } from '../src/index.js';
import { fixedWindow, slidingWindow, stepOutput, tokenBucket, slidingLog } from '../src/store/index.js';
import { clockStep, costFor, fixedWindowCases, slidingLogCases, slidingWindowCases, startInstant, tokenBucketCases } from './support/arbitraries.js';
import type { Case } from './support/subjects.js';

interface Went {
  readonly at: number;
  readonly cost: number;
}

type State = readonly number[] | undefined;
/** Withdraw answers the state to book on after `cancelled` are taken out of `went` (whose final state is `state`). */
type Withdraw = (algorithm: Algorithm<Policy>, policy: Policy, went: readonly Went[], cancelled: readonly boolean[], state: State, now: number) => State;

/** replay is the ledger's way: the step from the empty state through the requests not cancelled. */
const replay: Withdraw = (algorithm, policy, went, cancelled) => {
  let state: State;
  for (const [i, w] of went.entries()) {
    if (cancelled[i]) continue;
    const s = step(algorithm, state, w.at, w.cost, policy);
    if (!s.decision.allowed) throw new Error(`a request kept at ${w.at} (cost ${w.cost}) is refused once another is cancelled`);
    state = s.nextState;
  }
  return state;
};

/** MUTANT: the shortcut, the algorithm's refund of the cancelled cost applied to the final state. */
const refundInstead: Withdraw = (algorithm, policy, went, cancelled, state, now) => {
  const back = went.reduce((sum, w, i) => sum + (cancelled[i] ? w.cost : 0), 0);
  if (state === undefined || back === 0 || algorithm.refund === undefined) return state;
  const out = stepOutput(algorithm.stateSize);
  return algorithm.refund(policy, state, 0, now, back, out) ? Array.from(out.next) : state;
};

/** TOKEN_CLOCK_QUANTUM_MS: the token bucket's clock quantum at epoch instants, at most (token-bucket.ts). */
const TOKEN_CLOCK_QUANTUM_MS = 1e-3;

/** boundBroken answers how the requests that went break the policy's bound, or undefined. */
function boundBroken(policy: Policy, went: readonly Went[]): string | undefined {
  for (const [i, a] of went.entries()) {
    let cost = 0;
    for (const b of went.slice(i)) {
      cost += b.cost;
      if (policy.algorithm === 'token-bucket') {
        const p = policy as TokenBucketPolicy;
        // The bucket is exact on a token clock that resolves epoch instants below a microsecond
        // (token-bucket.ts): each end of the interval may sit that much off.
        const span = b.at - a.at + 2 * TOKEN_CLOCK_QUANTUM_MS;
        if (cost > p.capacity + span / p.intervalMs) return `${cost} cost in [${a.at}, ${b.at}] > ${p.capacity} + ${(b.at - a.at) / p.intervalMs}`;
      } else if (policy.algorithm === 'sliding-log') {
        const p = policy as SlidingLogPolicy;
        const inside = went.filter((w) => w.at > b.at - p.windowMs && w.at <= b.at).reduce((n, w) => n + w.cost, 0);
        if (inside > p.limit) return `${inside} cost in (${b.at - p.windowMs}, ${b.at}] > ${p.limit}`;
      }
    }
  }
  if (policy.algorithm === 'fixed-window' || policy.algorithm === 'sliding-window') {
    const perWindow = new Map<number, number>();
    for (const w of went) {
      const window = Math.floor(w.at / policy.windowMs);
      const n = (perWindow.get(window) ?? 0) + w.cost;
      if (n > policy.limit) return `${n} cost in window ${window} > ${policy.limit}`;
      perWindow.set(window, n);
    }
  }
  return undefined;
}

function algorithmOf(c: Case): { algorithm: Algorithm<Policy>; policy: Policy } {
  const policy = c.create(new ManualClock()).policy;
  const by = { 'token-bucket': tokenBucket, 'sliding-window': slidingWindow, 'fixed-window': fixedWindow } as Record<string, Algorithm<Policy>>;
  return { algorithm: by[policy.algorithm] ?? (slidingLog(policy.limit) as Algorithm<Policy>), policy };
}

function cancelsKeepTheBound(cases: fc.Arbitrary<Case>, withdraw: Withdraw) {
  const arb = cases.chain((c) =>
    fc.record({
      c: fc.constant(c),
      start: startInstant,
      requests: fc.array(fc.record({ dt: clockStep(c.scaleMs), cost: costFor(c.limit, false) }), { minLength: 1, maxLength: 40 }),
      cancel: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
      after: fc.array(costFor(c.limit, false), { minLength: 1, maxLength: 2 * c.limit + 2 }),
    }),
  );
  return fc.property(arb, ({ c, start, requests, cancel, after }) => {
    const { algorithm, policy } = algorithmOf(c);
    let state: State;
    let now = start;
    const went: Went[] = [];
    for (const r of requests) {
      now += r.dt;
      const s = step(algorithm, state, now, r.cost, policy);
      if (s.decision.allowed) went.push({ at: now, cost: r.cost });
      state = s.nextState;
    }
    const cancelled = went.map((_, i) => cancel[i] === true);
    state = withdraw(algorithm, policy, went, cancelled, state, now);
    const kept = went.filter((_, i) => !cancelled[i]);
    let at = went.length > 0 ? (went[went.length - 1] as Went).at : now;
    for (const cost of after) {
      const seen = step(algorithm, state, at, cost, policy);
      at += seen.decision.retryAfterMs;
      const booked = step(algorithm, state, at, cost, policy);
      if (!booked.decision.allowed) throw new Error(`a booking at ${at} is refused at its own instant`);
      kept.push({ at, cost });
      state = booked.nextState;
    }
    const broken = boundBroken(policy, kept);
    if (broken !== undefined) throw new Error(`the requests that went break the bound: ${broken}`);
  });
}

const ALGORITHMS: readonly [string, fc.Arbitrary<Case>][] = [
  ['token bucket (GCRA)', tokenBucketCases],
  ['sliding window', slidingWindowCases],
  ['fixed window', fixedWindowCases],
  ['sliding log', slidingLogCases],
];

describe('cancelling bookings anywhere in the queue, against the pure steps', () => {
  for (const [name, cases] of ALGORITHMS) {
    it(`${name}: the rest are admitted again at their instants, and the bound holds with what is booked after`, () => {
      fc.assert(cancelsKeepTheBound(cases, replay), { numRuns: 500 });
    });

    it(`${name}: the property catches a cancel that refunds the cost instead of replaying (mutant)`, () => {
      expect(fc.check(cancelsKeepTheBound(cases, refundInstead), { numRuns: 500 }).failed).toBe(true);
    });
  }
});
