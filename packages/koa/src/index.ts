// @ratekeeper/koa: Koa middleware over @ratekeeper/core, and its route key (for @koa/router); limiters,
// stores and clocks come from @ratekeeper/core.
export { type KoaRateLimitOptions, rateLimit } from './rate-limit.js';
export { routeKey } from './route-key.js';
