/**
 * routeKey(pattern) is the key of "this client on this route" for a Web handler: core's routeKeyOf
 * over the route pattern your router matched, which only you know here (a Next.js route's folder,
 * `/users/[id]`; a Bun `routes` key; a URLPattern's `pathname`), never the URL the client spelled.
 * Mount the check on that route with its pattern, `rateLimit({ key: routeKey('/users/[id]') })`, and
 * the spellings your router sends there, and every value of its parameters, count in the route's one
 * bucket per client; the same limiter (or store) shared by several routes keeps each route apart.
 * `client` is the default key the check hands every key (the address you pass as `ip`).
 */
import { describeValue, routeKeyOf } from '@ratekeeper/core/adapter';

/** routeKey returns the key function of one route pattern; validated at once (a non-empty string). */
export function routeKey<Req extends object = Request>(pattern: string): (request: Req, client: string | undefined) => string {
  if (typeof pattern !== 'string' || pattern.length === 0) throw new TypeError(`routeKey: pattern must be a non-empty string, got ${describeValue(pattern)}`);
  return function routeKey(_request, client) {
    return routeKeyOf(pattern, client);
  };
}
