// @ratekeeper/fetch: ratekeeper over Web-standard Request/Response (Bun, Deno, Cloudflare Workers,
// Next.js). The check and onFinished; limiters, stores and clocks come from @ratekeeper/core.
export { onFinished } from './on-finished.js';
export { type ClientAddress, type FetchRateLimit, type FetchRateLimitOptions, rateLimit } from './rate-limit.js';
