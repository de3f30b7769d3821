// @ratekeeper/hono: Hono middleware over @ratekeeper/fetch and @ratekeeper/core, and its route key;
// limiters, stores and clocks come from @ratekeeper/core.
export { type HonoRateLimitOptions, type RateLimitVariables, rateLimit } from './rate-limit.js';
export { routeKey } from './route-key.js';
