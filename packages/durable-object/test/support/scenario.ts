/**
 * A scenario: limiters, the limiter under test (one, a composite of all, or the first behind a ban)
 * and steps at fixed instants, run the same way in a Worker on a DurableObjectStore (test/support/
 * worker.ts, in workerd) and on Node on a MemoryStore (the specification), so that a test compares
 * the two step by step. Results are JSON-safe (Infinity as the string 'Infinity').
 */
import {
  BanLimiter,
  type Clock,
  CompositeLimiter,
  ConcurrencyLimiter,
  type Decision,
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  GcraLimiter,
  type RateLimiter,
  type Reservation,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  type Store,
  TokenBucketLimiter,
  reserve,
} from '@ratekeeper/core';

export type LimiterType = 'token-bucket' | 'sliding-window' | 'fixed-window' | 'first-request-window' | 'sliding-log' | 'gcra' | 'concurrency';

export interface LimiterSpec {
  readonly type: LimiterType;
  readonly options: Record<string, unknown>;
}

export interface Step {
  /** Milliseconds after the scenario's start (a ManualClock moved there first), when time is the client's. */
  readonly at?: number;
  readonly do: 'consume' | 'peek' | 'allow' | 'reset' | 'refund' | 'reserve' | 'cancel';
  readonly key: string;
  readonly cost?: number;
  /** Run the call this many times at once (Promise.all); the result is then a count. */
  readonly times?: number;
  readonly maxWaitMs?: number;
}

export interface Scenario {
  readonly limiters: readonly LimiterSpec[];
  readonly composite?: boolean;
  readonly banMs?: number;
  readonly steps: readonly Step[];
}

/** Figures is a decision as JSON: [allowed, remaining, retryAfterMs, resetAfterMs, failure]. */
export type Figures = [boolean, number | string, number | string, number | string, string | null];

export interface Counted {
  readonly allowed: number;
  readonly denied: number;
  readonly failed: number;
}

export type StepResult = Figures | Counted | boolean | null | { ok: boolean; delayMs: number | string; decision: Figures };

const MAKERS: Record<LimiterType, (o: Record<string, unknown>) => RateLimiter<'async'>> = {
  'token-bucket': (o) => new TokenBucketLimiter(o as never),
  'sliding-window': (o) => new SlidingWindowLimiter(o as never),
  'fixed-window': (o) => new FixedWindowLimiter(o as never),
  'first-request-window': (o) => new FirstRequestWindowLimiter(o as never),
  'sliding-log': (o) => new SlidingLogLimiter(o as never),
  gcra: (o) => new GcraLimiter(o as never),
  concurrency: (o) => new ConcurrencyLimiter(o as never),
};

/** limiterOf builds the scenario's limiter under test on `store` and `clock`. */
export function limiterOf(s: Scenario, store: Store, clock: Clock): RateLimiter<'async'> {
  const members = s.limiters.map((spec) => MAKERS[spec.type]({ ...spec.options, store, clock }));
  if (s.composite === true) return new CompositeLimiter(members);
  const first = members[0] as RateLimiter<'async'>;
  return s.banMs === undefined ? first : new BanLimiter({ limiter: first, banMs: s.banMs });
}

const num = (n: number): number | string => (Number.isFinite(n) ? n : String(n));

export function figures(d: Decision): Figures {
  return [d.allowed, num(d.remaining), num(d.retryAfterMs), num(d.resetAfterMs), d.failure ?? null];
}

/** runScenario runs the steps in order (each awaited), moving `move` to the step's instant first. */
export async function runScenario(s: Scenario, limiter: RateLimiter<'async'>, move: (at: number) => void): Promise<StepResult[]> {
  const results: StepResult[] = [];
  let last: Reservation<'async'> | undefined;
  for (const step of s.steps) {
    if (step.at !== undefined) move(step.at);
    const cost = step.cost ?? 1;
    if (step.times !== undefined) {
      const all = await Promise.all(Array.from({ length: step.times }, () => limiter.consume(step.key, cost)));
      results.push({ allowed: all.filter((d) => d.allowed).length, denied: all.filter((d) => !d.allowed).length, failed: all.filter((d) => d.failure !== undefined).length });
      continue;
    }
    switch (step.do) {
      case 'consume':
        results.push(figures(await limiter.consume(step.key, cost)));
        break;
      case 'peek':
        results.push(figures(await limiter.peek(step.key, cost)));
        break;
      case 'allow':
        results.push(await limiter.allow(step.key, cost));
        break;
      case 'reset':
        results.push((await limiter.reset(step.key)) ?? null);
        break;
      case 'refund':
        results.push((await (limiter.refund as NonNullable<RateLimiter<'async'>['refund']>)(step.key, cost)) ?? null);
        break;
      case 'reserve': {
        last = await reserve(limiter, step.key, cost, step.maxWaitMs === undefined ? {} : { maxWaitMs: step.maxWaitMs });
        results.push({ ok: last.ok, delayMs: num(last.delayMs), decision: figures(last.decision) });
        break;
      }
      case 'cancel':
        results.push(last === undefined ? null : await last.cancel());
        break;
    }
  }
  return results;
}
