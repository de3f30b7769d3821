// @ratekeeper/fetch: ratekeeper over Web-standard Request/Response (Bun, Deno, Cloudflare Workers,
// Next.js). The check, onFinished and withHeaders (for adapters built on this one, as Hono's);
// limiters, stores and clocks come from @ratekeeper/core.
export { onFinished } from './on-finished.js';
export { type ClientAddress, type FetchRateLimit, type FetchRateLimitOptions, type RuntimeArgs, rateLimit } from './rate-limit.js';
export { withHeaders } from './response.js';
