// @ratekeeper/fetch: ratekeeper over Web-standard Request/Response (Bun, Deno, Cloudflare Workers,
// Next.js). The check, its route key, the platforms' client addresses (ipFrom, from core), onFinished
// and withHeaders (for adapters built on this one, as Hono's); limiters, stores and clocks come from
// @ratekeeper/core.
export { type HeaderSource, type Platform, type ProxyHops, ipFrom } from '@ratekeeper/core/adapter';
export { onFinished } from './on-finished.js';
export { type ClientAddress, type FetchRateLimit, type FetchRateLimitOptions, type RuntimeArgs, rateLimit } from './rate-limit.js';
export { withHeaders } from './response.js';
export { routeKey } from './route-key.js';
