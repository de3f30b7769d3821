/**
 * Algorithm: one pure, synchronous rate-limiting step. `evaluate` reads a key's state (a few numbers,
 * or none for a key in its empty state), the time and the cost, and writes the decision and the next
 * state into a caller-owned StepOutput; it reads no clock and keeps nothing between calls. A store
 * applies the step and, only when `out.allowed`, writes `out.next` back: a denial never changes state.
 *
 * The arithmetic here is the specification that the Redis scripts port operation for operation, so
 * that both give bit-identical decisions.
 */
import type { Decision } from './decision.js';
import type { AlgorithmName, Policy } from './policy.js';

/** StepOutput is the scratch record a step writes; stores reuse one so that deciding allocates nothing. */
export interface StepOutput {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
  resetAfterMs: number;
  /** When allowed: milliseconds until `next` is back to the empty state (the key's TTL). */
  ttlMs: number;
  /** When allowed: the next state, `stateSize` numbers from index 0. */
  readonly next: Float64Array;
}

export interface Algorithm<P extends Policy = Policy> {
  readonly name: AlgorithmName;
  /** How many numbers of state one key holds. */
  readonly stateSize: number;
  /**
   * pinned: a held state is returned only by a refund (a concurrency lease), never by time, so
   * dropping it would admit beyond the limit. The memory store never evicts a live pinned key; while
   * its table is full of them it denies a new key as if that key held the whole limit (a one-number
   * state equal to `policy.limit`). Optional: time-based algorithms leave it out.
   */
  readonly pinned?: true;
  /**
   * evaluate decides `cost` at `now` for the state found at `state[offset…]` (undefined: the empty
   * state) and writes the result into `out`.
   */
  evaluate(policy: P, state: ArrayLike<number> | undefined, offset: number, now: number, cost: number, out: StepOutput): void;
  /** emptyAt is the instant at which the state at `state[offset…]` is back to the empty state. */
  emptyAt(policy: P, state: ArrayLike<number>, offset: number): number;
  /**
   * fill is the fraction of the limit the state at `state[offset…]` holds at `now`, read as evaluate
   * reads it: 0 for a state with all its room (an empty one), 1 for a state with none left. The memory
   * store evicts the keys with the most room first, so that a blocked key outlives a flood of fresh ones.
   */
  fill(policy: P, state: ArrayLike<number>, offset: number, now: number): number;
  /**
   * admit is evaluate's verdict alone, for a held state: when evaluate would allow, it writes the same
   * next state over `state[offset…]` and returns true; otherwise it changes nothing and returns false.
   * It computes none of a Decision's figures, which is what keeps `allow` as cheap as a naive bucket. Optional: without it, allow evaluates.
   */
  admit?(policy: P, state: Float64Array, offset: number, now: number, cost: number): boolean;
  /**
   * refund gives back up to `cost` units to the held state at `state[offset…]` at `now`: it writes the
   * next state into `out.next` and its time to empty into `out.ttlMs` and returns true, or returns
   * false when there is nothing to give back (nothing is then written). It never leaves a state more
   * generous than the empty (full) one, and never gives back more than the state holds: a refund can
   * lower what a key has spent, never raise what it may spend above its policy. Optional: a limiter
   * whose algorithm has none cannot refund.
   */
  refund?(policy: P, state: ArrayLike<number>, offset: number, now: number, cost: number, out: StepOutput): boolean;
  /**
   * charge adds `cost` units to the state at `state[offset…]` (undefined: the empty state) at `now`
   * whatever the limit says (rate-limiter-flexible's `penalty`): it writes the next state into
   * `out.next` and its time to empty into `out.ttlMs`, and nothing else. Unlike a consume it is never
   * refused: a key may end up holding more than its limit, and is then denied until enough time has
   * passed to pay the excess back (its decisions' Retry-After says when). Optional: a limiter whose
   * algorithm has none (a concurrency limit: a lease is not a penalty) cannot charge.
   */
  charge?(policy: P, state: ArrayLike<number> | undefined, offset: number, now: number, cost: number, out: StepOutput): void;
  /**
   * usage reads what the state at `state[offset…]` (undefined: the empty state) holds at `now` into
   * `out`, deciding nothing (usage.ts says what each figure means). Optional, like charge.
   */
  usage?(policy: P, state: ArrayLike<number> | undefined, offset: number, now: number, out: UsageOutput): void;
}

/** UsageOutput is the scratch record Algorithm.usage writes (usage.ts: the figures' meaning). */
export interface UsageOutput {
  used: number;
  remaining: number;
  resetAfterMs: number;
}

/** usageOutput allocates a UsageOutput. */
export function usageOutput(): UsageOutput {
  return { used: 0, remaining: 0, resetAfterMs: 0 };
}

/** stepOutput allocates a StepOutput for an algorithm's state size. */
export function stepOutput(stateSize: number): StepOutput {
  return { allowed: false, remaining: 0, retryAfterMs: 0, resetAfterMs: 0, ttlMs: 0, next: new Float64Array(stateSize) };
}

/** toDecision copies a step's outcome into a fresh Decision. */
export function toDecision(out: StepOutput, policy: Policy): Decision {
  return {
    allowed: out.allowed,
    limit: policy.limit,
    remaining: out.remaining,
    retryAfterMs: out.retryAfterMs,
    resetAfterMs: out.resetAfterMs,
    policy,
  };
}

export interface Step {
  readonly decision: Decision;
  /** The state after the step: the input state itself when denied. */
  readonly nextState: readonly number[] | undefined;
  /** When allowed: milliseconds until `nextState` is empty again; when denied: 0. */
  readonly ttlMs: number;
}

/**
 * step is the allocation-friendly form of the contract, `(state | undefined, now, cost, policy) ->
 * { decision, nextState, ttlMs }`, for tests, differential checks and custom stores.
 */
export function step<P extends Policy>(algorithm: Algorithm<P>, state: readonly number[] | undefined, now: number, cost: number, policy: P): Step {
  const out = stepOutput(algorithm.stateSize);
  algorithm.evaluate(policy, state, 0, now, cost, out);
  const decision = toDecision(out, policy);
  return out.allowed ? { decision, nextState: Array.from(out.next), ttlMs: out.ttlMs } : { decision, nextState: state, ttlMs: 0 };
}
