/**
 * @ratekeeper/fastify: the rateLimit plugin and its option types. `rateLimit` is also the default
 * export, on purpose: Fastify's own idioms, `import rateLimit from '@ratekeeper/fastify'` and
 * `fastify.register(import('@ratekeeper/fastify'))` (avvio unwraps a module's `default`), need one, and
 * it is the very same function as the named export, which stays the documented form.
 */
export { rateLimit, rateLimit as default } from './plugin.js';
export type { FastifyRateLimitOptions, RateLimitHandler, RouteRateLimitOptions } from './options.js';
