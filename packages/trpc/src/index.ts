// @ratekeeper/trpc: a tRPC v11 middleware over @ratekeeper/core's prepared plan. Limiters, stores and
// clocks come from @ratekeeper/core (and @ratekeeper/redis, …).
export { RateLimitedError, type RetryData, rateLimitErrorFormatter, retryAfterOf } from './error.js';
export { type CallOptions, type RateLimitMiddleware, type TrpcPlans, type TrpcRateLimitOptions, rateLimit } from './rate-limit.js';
