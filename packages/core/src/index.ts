export { type Clock, ManualClock, systemClock } from './clock.js';
export { type Decision, bannedDecision, neverSatisfiable } from './decision.js';
export type {
  AlgorithmName,
  ConcurrencyPolicy,
  FixedWindowPolicy,
  Policy,
  SlidingLogPolicy,
  SlidingWindowPolicy,
  TokenBucketPolicy,
  WindowAlgorithm,
  WindowPolicy,
} from './policy.js';
export { type Algorithm, type Step, type StepOutput, step, stepOutput, toDecision } from './algorithm.js';
export { tokenBucket } from './algorithms/token-bucket.js';
export { slidingWindow } from './algorithms/sliding-window.js';
export { fixedWindow } from './algorithms/fixed-window.js';
export { MAX_LOG, slidingLog } from './algorithms/sliding-log.js';
export { concurrency } from './algorithms/concurrency.js';
export type { Booking, Mode, Result, Store, StoreBinding } from './store.js';
export { DEFAULT_MAX_KEYS, MemoryBinding, MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export { Limiter, type LimiterOptions, type RateLimiter } from './limiter.js';
export { FixedWindowLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter, type TokenBucketOptions, type WindowOptions } from './limiters.js';
export { ConcurrencyLimiter, type ConcurrencyOptions } from './concurrency.js';
export { GcraLimiter, type GcraOptions } from './gcra.js';
export { type Reservation, type ReserveOptions, WaitError, type WaitOptions, reserve, wait } from './reserve.js';
export { CompositeLimiter, mostRestrictive } from './composite.js';
export { describeValue, refuseUnknown } from './validate.js';
export { BanLimiter, type BanOptions, type Bans } from './ban.js';
export { DECISION_OUTCOMES, type DecisionOutcome, type Telemetry, outcomeOf } from './telemetry.js';
export * from './http/index.js';
