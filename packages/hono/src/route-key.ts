/**
 * routeKey is the key of "this client on this route" for Hono: core's routeKeyOf over the path of the
 * last route Hono matched for the request (`matchedRoutes(c)` of `hono/route`, whose last entry is the
 * handler's route when middleware is registered before routes, as `routePath(c, -1)` reads it:
 * `/api/users/:id`), known in an app-wide middleware, so one `app.use` counts each route apart. Every
 * spelling Hono routes to the handler (`/api/%6Cogin`, `/api/./login`, `/api/x/../login`) counts in
 * the route's one bucket, and rotating a parameter mints none. A request no route answers counts in
 * the bucket of the last route that matched it, at most the limiter's own (`/*`): probing paths mints
 * nothing either. `client` is the default key the middleware hands every key (the address from
 * `getConnInfo` or `ip`), or any identity of yours: `key: (c) => routeKey(c, c.var.user.id)`.
 */
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import { routeKeyOf } from '@ratekeeper/core/adapter';

/** routeKey keys `c` by `client` on the most specific route Hono matched; use it as the `key` option. */
export function routeKey(c: Context, client: string | undefined): string {
  return routeKeyOf(matchedRoutes(c).at(-1)?.path, client);
}
