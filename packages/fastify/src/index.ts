/**
 * @ratekeeper/fastify: the rateLimit plugin, its option types and its route key. `rateLimit` is also the default
 * export, on purpose: Fastify's own idioms, `import rateLimit from '@ratekeeper/fastify'` and
 * `fastify.register(import('@ratekeeper/fastify'))` (avvio unwraps a module's `default`), need one, and
 * it is the very same function as the named export, which stays the documented form.
 */
export { rateLimit, rateLimit as default } from './plugin.js';
export { routeKey } from './route-key.js';
export type { FastifyRateLimitOptions, RateLimitHandler, RouteRateLimitOptions } from './options.js';
