export { type Clock, ManualClock, systemClock } from './clock.js';
export { type Decision, neverSatisfiable } from './decision.js';
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
export {
  type Algorithm,
  type Step,
  type StepOutput,
  step,
  /** @deprecated Import it from '@ratekeeper/core/store'; it leaves this entry in the next minor version. */
  stepOutput,
  /** @deprecated Import it from '@ratekeeper/core/store'; it leaves this entry in the next minor version. */
  toDecision,
} from './algorithm.js';
export {
  /** @deprecated Import it from '@ratekeeper/core/store'; it leaves this entry in the next minor version. */
  tokenBucket,
} from './algorithms/token-bucket.js';
export {
  /** @deprecated Import it from '@ratekeeper/core/store'; it leaves this entry in the next minor version. */
  slidingWindow,
} from './algorithms/sliding-window.js';
export {
  /** @deprecated Import it from '@ratekeeper/core/store'; it leaves this entry in the next minor version. */
  fixedWindow,
} from './algorithms/fixed-window.js';
export { MAX_LOG } from './algorithms/sliding-log.js';
export type { Booking, Mode, Result, Store, StoreBinding } from './store.js';
export {
  /** @deprecated Import it from '@ratekeeper/core/store'; it leaves this entry in the next minor version. */
  MemoryBinding,
} from './memory/memory-binding.js';
export { DEFAULT_MAX_KEYS, MemoryStore, type MemoryStoreOptions } from './memory/memory-store.js';
export { type Bookable, Limiter, type LimiterOptions, type RateLimiter } from './limiter/limiter.js';
export { FixedWindowLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter, type TokenBucketOptions, type WindowOptions } from './limiter/bucket-and-window.js';
export { ConcurrencyLimiter, type ConcurrencyOptions } from './limiter/concurrency-limiter.js';
export { GcraLimiter, type GcraOptions } from './limiter/gcra.js';
export { type Reservation, type ReserveOptions, WaitError, type WaitOptions, reserve, wait } from './limiter/reserve.js';
export { CompositeLimiter, mostRestrictive } from './limiter/composite.js';
export {
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  describeValue,
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  refuseUnknown,
} from './validate.js';
export { BanLimiter, type BanOptions, type Bans } from './limiter/ban.js';
export {
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  DECISION_OUTCOMES,
  type DecisionOutcome,
  type Telemetry,
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  outcomeOf,
} from './telemetry.js';
// The HTTP layer: what applications use of it here; all of it, for adapters, in ./adapter.ts
// (`@ratekeeper/core/adapter`), where the names marked deprecated below now live.
export { DEFAULT_IPV6_SUBNET, checkIpv6Subnet, ipKey } from './http/client/ip.js';
export { IpList } from './http/client/ip-list.js';
export {
  type HeaderSetter,
  type HeaderStyle,
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  limitField,
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  policyField,
  retryAfterSeconds,
  seconds,
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  writeHeaders,
} from './http/respond/headers.js';
export { type LimitedResponse, PROBLEM_CONTENT_TYPE, limitedResponse } from './http/respond/problem.js';
export {
  type AlgorithmShorthand,
  type ConcurrencyShorthand,
  type FixedWindowShorthand,
  type GcraShorthand,
  type LimiterChoice,
  type ReadyLimiter,
  type ShorthandCommon,
  type SlidingLogShorthand,
  type SlidingWindowShorthand,
  type TokenBucketShorthand,
  type WindowSizes,
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  chooseLimiter,
} from './http/options/shorthand.js';
export {
  type LimiterSource,
  type RateLimitBaseOptions,
  type RateLimitOptions,
  /** @deprecated Renamed PreparedRateLimit (a plan is one of the `plans`), exported by @ratekeeper/core/adapter; this name leaves in the next minor version. */
  type RateLimitPlan,
  type RateLimitPlans,
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  prepareRateLimit,
} from './http/prepare.js';
export { MissingIpError, RateLimiterError } from './http/decide/errors.js';
export { PROXY_WARNING_CODES, type ProxyFinding, type ProxySetting } from './http/client/proxy-check.js';
export {
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  type LimitedBody,
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  LimitedBodies,
  /** @deprecated Import it from '@ratekeeper/core/adapter'; it leaves this entry in the next minor version. */
  MAX_LIMITED_BODIES,
} from './http/respond/limited-bodies.js';
export { DEFAULT_MAX_DELAY_MS, type DelayOptions } from './http/decide/delay.js';
// What countOutcome and settle are told of a response's end.
export type { Finished } from './http/settle/settle.js';
