export { type Clock, ManualClock, systemClock } from './clock.js';
export { type Decision, neverSatisfiable } from './decision.js';
export type { Usage } from './usage.js';
export type {
  AlgorithmName,
  ConcurrencyPolicy,
  FirstRequestWindowPolicy,
  FixedWindowPolicy,
  Policy,
  SlidingLogPolicy,
  SlidingWindowPolicy,
  TokenBucketPolicy,
  WindowAlgorithm,
  WindowPolicy,
} from './policy.js';
export { type Algorithm, type Step, type StepOutput, type UsageOutput, step } from './algorithm.js';
export { MAX_LOG } from './algorithms/sliding-log.js';
export type { Booking, Mode, Result, Store, StoreBinding } from './store/contract.js';
export { DEFAULT_MAX_KEYS, MemoryStore, type MemoryStoreOptions } from './memory/memory-store.js';
export { type Bookable, Limiter, type LimiterOptions, type RateLimiter } from './limiter/limiter.js';
export {
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
  type TokenBucketOptions,
  type WindowOptions,
} from './limiter/bucket-and-window.js';
export { ConcurrencyLimiter, type ConcurrencyOptions } from './limiter/concurrency-limiter.js';
export { GcraLimiter, type GcraOptions } from './limiter/gcra.js';
export { type Reservation, type ReserveOptions, WaitError, type WaitOptions, reserve, wait } from './limiter/reserve.js';
export { CompositeLimiter, mostRestrictive } from './limiter/composite.js';
export { BanLimiter, type BanOptions, type Bans } from './limiter/ban.js';
export type { DecisionOutcome, Telemetry } from './telemetry.js';
// The HTTP layer: what applications use of it here; all of it, for adapters, in ./adapter.ts
// (`@ratekeeper/core/adapter`).
export { DEFAULT_IPV6_SUBNET, checkIpv6Subnet, ipKey } from './http/client/ip.js';
export { clientKey } from './http/client/client-key.js';
export { IpList } from './http/client/ip-list.js';
export { type HeaderSetter, type HeaderStyle, retryAfterSeconds, seconds } from './http/respond/headers.js';
export { type LimitedResponse, PROBLEM_CONTENT_TYPE, limitedResponse } from './http/respond/problem.js';
export {
  type AlgorithmShorthand,
  type ConcurrencyShorthand,
  type FirstRequestWindowShorthand,
  type FixedWindowShorthand,
  type GcraShorthand,
  type LimiterChoice,
  type ReadyLimiter,
  type ShorthandCommon,
  type SlidingLogShorthand,
  type SlidingWindowShorthand,
  type TokenBucketShorthand,
  type WindowSizes,
} from './http/options/shorthand.js';
export type { LimiterSource, RateLimitBaseOptions, RateLimitOptions, RateLimitPlans } from './http/prepare.js';
export { MissingIpError, RateLimiterError } from './http/decide/errors.js';
export { PROXY_WARNING_CODES, type ProxyFinding, type ProxySetting } from './http/client/proxy-check.js';
export { DEFAULT_MAX_DELAY_MS, type DelayOptions } from './http/decide/delay.js';
// What countOutcome and settle are told of a response's end.
export type { Finished } from './http/settle/settle.js';
