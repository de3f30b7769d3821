/**
 * Route keys: one bucket per client per route, where the route is the template the framework matched
 * (`/users/:id`), never the path the client spelled. The spellings of one path a router accepts
 * (`//login`, `/LOGIN`, `/login/`, `/%6Cogin`, `/./login`, `/x/../login`, `/login;p`, depending on
 * the router) all reach the one handler its template names, so counting by the template gives an
 * attacker no second bucket for a second spelling (a double slash escaped better-auth's route limits,
 * CVE-2025-71399; case, a trailing slash or `%6C` escaped others'), and a path parameter never enters
 * the key, so rotating `/users/1`, `/users/2`, ... never mints a bucket (steemit/wallet#319).
 *
 * `routeKeyOf(route, client)` is the part every adapter shares; each adapter's `routeKey(req,
 * client)` reads its framework's matched template and calls it:
 * - `route` is the template as the framework holds it: a string, or a RegExp or list of them
 *   (Express, @koa/router), written with `String`. Templates are the application's, so there are as
 *   many route keys per client as the application has routes.
 * - `null` (or undefined) is "no route matched" (a 404 on a framework whose limiter runs before its
 *   router answers, Fastify): every such request of one client counts in one bucket of its own, so
 *   probing random paths mints nothing either.
 * - `client` is whom the bucket is for: the adapters' default key (the client IP's key, which decide
 *   hands every `key` hook) or any identity of the caller's (a user id). A missing client (undefined,
 *   or '') is a MissingIpError, which decide reads as a request without a usable IP (`missingIp`):
 *   never a bucket shared by every address-less request.
 * The key is `<length of route>:<route> <client>`: distinct (route, client) pairs are distinct keys,
 * whatever characters either holds. Keys never reach a response, so their shape is free.
 */
import { describeValue } from '../../validate.js';
import { MissingIpError } from '../decide/errors.js';

const OWNER = 'routeKey';

/** A route template as a framework holds it: a path pattern, or a RegExp, or a list of either. */
export type RouteTemplate = string | RegExp | readonly (string | RegExp)[];

/** routeKeyOf is the key of `client` on `route` (null or undefined: on no route). */
export function routeKeyOf(route: RouteTemplate | null | undefined, client: string | undefined): string {
  if (typeof client !== 'string' || client.length === 0) {
    if (client === undefined || client === '') throw new MissingIpError(OWNER);
    throw new TypeError(`${OWNER}: client must be a string, got ${describeValue(client)}`);
  }
  const template = typeof route === 'string' ? route : route == null ? '' : templateText(route);
  return `${template.length}:${template} ${client}`;
}

/** templateText writes a RegExp or a list of templates the way the framework would print it. */
function templateText(route: unknown): string {
  if (route instanceof RegExp || Array.isArray(route)) return String(route);
  throw new TypeError(`${OWNER}: a route template must be a string, a RegExp or a list of them, got ${describeValue(route)}`);
}
