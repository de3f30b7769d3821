/**
 * Subjects under test, all driven with an explicit `now`: a StoreBinding of the memory store already
 * has that shape, and `viaClock` gives a clock-reading limiter (a CompositeLimiter, say) the same one.
 * Properties are written once against a Subject so that the same check runs on the real code and on
 * a mutant, and must pass on the first and fail on the second.
 */
import fc from 'fast-check';
import {
  type Algorithm,
  type Clock,
  CompositeLimiter,
  type Decision,
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  type Limiter,
  ManualClock,
  MemoryStore,
  type Policy,
  type RateLimiter,
  SlidingWindowLimiter,
  SlidingLogLimiter,
  type Store,
  TokenBucketLimiter,
} from '../../src/index.js';
import { type MemoryBinding } from '../../src/store/index.js';

export interface Subject {
  consume(key: string, now: number, cost: number): Decision;
  peek(key: string, now: number, cost: number): Decision;
  allow(key: string, now: number, cost: number): boolean;
  /** Live keys evicted so far, where the subject is a single limiter on a MemoryStore. */
  readonly evictions?: number;
}

/** viaClock drives a limiter that reads `clock` as a Subject. */
export function viaClock(limiter: RateLimiter<'sync'>, clock: ManualClock): Subject {
  return {
    consume: (key, now, cost) => (clock.set(now), limiter.consume(key, cost)),
    peek: (key, now, cost) => (clock.set(now), limiter.peek(key, cost)),
    allow: (key, now, cost) => (clock.set(now), limiter.allow(key, cost)),
  };
}

/** A limiter configuration: its quota, its natural time scale, and how to build it. */
export interface Case {
  readonly label: string;
  /** Capacity or limit. */
  readonly limit: number;
  /** Burst refill time or window length: the scale of interesting clock steps. */
  readonly scaleMs: number;
  create(clock: Clock, store?: Store<'sync'>): Limiter<Policy, 'sync'>;
}

export function tokenBucketCase(capacity: number, refillPerSecond: number): Case {
  return labelled({
    label: `token bucket C=${capacity} R=${refillPerSecond}/s`,
    limit: capacity,
    scaleMs: Math.max(1, Math.ceil((capacity * 1000) / refillPerSecond)),
    create: (clock, store) => new TokenBucketLimiter(store ? { capacity, refillPerSecond, clock, store } : { capacity, refillPerSecond, clock }),
  });
}

export function slidingWindowCase(limit: number, windowMs: number): Case {
  return labelled({
    label: `sliding window L=${limit} W=${windowMs}ms`,
    limit,
    scaleMs: windowMs,
    create: (clock, store) => new SlidingWindowLimiter(store ? { limit, windowMs, clock, store } : { limit, windowMs, clock }),
  });
}

export function fixedWindowCase(limit: number, windowMs: number): Case {
  return labelled({
    label: `fixed window L=${limit} W=${windowMs}ms`,
    limit,
    scaleMs: windowMs,
    create: (clock, store) => new FixedWindowLimiter(store ? { limit, windowMs, clock, store } : { limit, windowMs, clock }),
  });
}

export function firstRequestWindowCase(limit: number, windowMs: number): Case {
  return labelled({
    label: `first-request window L=${limit} W=${windowMs}ms`,
    limit,
    scaleMs: windowMs,
    create: (clock, store) => new FirstRequestWindowLimiter(store ? { limit, windowMs, clock, store } : { limit, windowMs, clock }),
  });
}

export function slidingLogCase(limit: number, windowMs: number): Case {
  return labelled({
    label: `sliding log L=${limit} W=${windowMs}ms`,
    limit,
    scaleMs: windowMs,
    create: (clock, store) => new SlidingLogLimiter(store ? { limit, windowMs, clock, store } : { limit, windowMs, clock }),
  });
}

/** labelled makes fast-check print a case by its label in counterexamples. */
function labelled(c: Case): Case {
  return Object.assign(c, { [fc.toStringMethod]: () => c.label });
}

/** realSubject builds `c` on its own memory store and drives it through a ManualClock. */
export function realSubject(c: Case, maxKeys?: number): Subject {
  const clock = new ManualClock();
  const limiter = c.create(clock, maxKeys === undefined ? undefined : new MemoryStore({ maxKeys }));
  const binding = limiter.binding as MemoryBinding;
  return Object.defineProperty(viaClock(limiter, clock), 'evictions', { get: () => binding.evictions });
}

/** bindAlgorithm runs `algorithm` (a mutant, typically) under `c`'s real policy on a real memory store. */
export function bindAlgorithm(c: Case, algorithm: Algorithm<Policy>, maxKeys?: number): Subject {
  const policy = c.create(new ManualClock()).policy;
  return new MemoryStore(maxKeys === undefined ? undefined : { maxKeys }).bind(algorithm, policy);
}

/** compositeSubject builds a CompositeLimiter over fresh members of `cases`, on one ManualClock. */
export function compositeSubject(cases: readonly Case[]): Subject {
  const clock = new ManualClock();
  return viaClock(new CompositeLimiter(cases.map((c) => c.create(clock))), clock);
}

/** A target of a property: one limiter or a composite, with the figures the generators need. */
export interface Target {
  readonly label: string;
  /** The largest cost that can ever be admitted (a composite: its smallest member limit). */
  readonly limit: number;
  readonly scaleMs: number;
  make(): Subject;
}

export function single(c: Case, make: (c: Case) => Subject = (x) => realSubject(x)): Target {
  return labelledTarget({ label: c.label, limit: c.limit, scaleMs: c.scaleMs, make: () => make(c) });
}

export function composite(cases: readonly Case[]): Target {
  return labelledTarget({
    label: `composite [${cases.map((c) => c.label).join(' + ')}]`,
    limit: Math.min(...cases.map((c) => c.limit)),
    scaleMs: Math.max(...cases.map((c) => c.scaleMs)),
    make: () => compositeSubject(cases),
  });
}

function labelledTarget(t: Target): Target {
  return Object.assign(t, { [fc.toStringMethod]: () => t.label });
}
