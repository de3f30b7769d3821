// @ratekeeper/nestjs: a Nest module, guard and decorators over @ratekeeper/core's prepared plan.
// Limiters, stores and clocks come from @ratekeeper/core (and @ratekeeper/redis, …).
export { type NamedLimits, RateLimit, SkipRateLimit } from './decorators.js';
export { type ProblemBody, RateLimitException, type RateLimitExtensions } from './exception.js';
export { RateLimitGuard } from './guard.js';
export { RateLimitInterceptor } from './interceptor.js';
export type { NestRequest } from './invocation.js';
export { RateLimitModule, type RateLimitModuleAsyncOptions } from './module.js';
export type { NamedModuleOptions, NestBehaviour, NestHooks, NestPlans, RateLimitModuleOptions, RateLimitOptions } from './options.js';
export type { ThrottlerNames } from './throttler-names.js';
