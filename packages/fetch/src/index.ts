// @ratekeeper/fetch: ratekeeper over Web-standard Request/Response (Bun, Deno, Cloudflare Workers,
// Next.js). One export; limiters, stores and clocks come from @ratekeeper/core.
export { type ClientAddress, type FetchRateLimit, type FetchRateLimitOptions, rateLimit } from './rate-limit.js';
