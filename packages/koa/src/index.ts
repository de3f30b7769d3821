// @ratekeeper/koa: Koa middleware over @ratekeeper/core. One export; limiters, stores and clocks come
// from @ratekeeper/core.
export { type KoaRateLimitOptions, rateLimit } from './rate-limit.js';
