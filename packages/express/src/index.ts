// @ratekeeper/express: Express middleware over @ratekeeper/core, and its route key; limiters, stores
// and clocks come from @ratekeeper/core.
export { type ExpressRateLimitOptions, rateLimit } from './rate-limit.js';
export { routeKey } from './route-key.js';
