// @ratekeeper/express: Express middleware over @ratekeeper/core. One export; limiters, stores and
// clocks come from @ratekeeper/core.
export { type ExpressRateLimitOptions, rateLimit } from './rate-limit.js';
