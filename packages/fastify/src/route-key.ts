/**
 * routeKey is the key of "this client on this route" for Fastify: core's routeKeyOf over the URL
 * template of the route Fastify matched (`request.routeOptions.url`, prefix included:
 * `/api/users/:id`), known in the plugin's onRequest hook, so one app-wide registration counts each
 * route apart. Every spelling find-my-way sends to the handler (`/api/%6Cogin` is `/api/login`; with
 * `ignoreTrailingSlash`, `ignoreDuplicateSlashes` or `caseSensitive: false`, those spellings too) counts in
 * the route's one bucket, and rotating a parameter mints none. A request no route matched (the 404
 * handler's) counts in one bucket per client of its own: probing paths mints nothing either.
 * `client` is the default key the plugin hands every key (the client IP's), or any identity of yours:
 * `key: (request) => routeKey(request, request.user.id)`.
 */
import type { FastifyRequest } from 'fastify';
import { routeKeyOf } from '@ratekeeper/core/adapter';

/** routeKey keys `request` by `client` on the route Fastify matched (or on no route); use it as the `key` option. */
export function routeKey(request: FastifyRequest, client: string | undefined): string {
  return routeKeyOf(request.routeOptions.url, client);
}
