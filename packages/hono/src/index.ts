// @ratekeeper/hono: Hono middleware over @ratekeeper/fetch and @ratekeeper/core. One export; limiters,
// stores and clocks come from @ratekeeper/core.
export { type HonoRateLimitOptions, type RateLimitVariables, rateLimit } from './rate-limit.js';
