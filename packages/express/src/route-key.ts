/**
 * routeKey is the key of "this client on this route" for Express: core's routeKeyOf over the path of
 * the route Express matched (`req.route.path`, the template as written: `/users/:id`), so every
 * spelling Express routes to the handler (`/USERS/7`, `/users/7/`: Express matches without case or a
 * trailing slash by default) counts in the route's one bucket, and rotating a parameter mints none.
 *
 * Express sets `req.route` only inside the route's own stack, so mount the limiter there
 * (`app.post('/login', limit, login)`, or one limiter on several routes); app-wide (`app.use`) no
 * route has matched yet, and routeKey throws a TypeError naming the fix rather than count every
 * route in one bucket. The path is the route's own: Express keeps no template of a router's mount
 * path (`req.baseUrl` is the path as the client spelled it, `/API` for a router at `/api`, its
 * parameters filled in), so routes of two routers with the same path share a bucket: give each router
 * its own limiter. `client` is the default key the middleware hands every key (the client IP's), or
 * any identity of yours: `key: (req) => routeKey(req, req.user.id)`.
 */
import type { Request } from 'express';
import { routeKeyOf } from '@ratekeeper/core/adapter';

/** routeKey keys `req` by `client` on the route Express matched; use it as the `key` option of a limiter mounted on routes. */
export function routeKey(req: Request, client: string | undefined): string {
  const route: unknown = req.route;
  if (route === undefined || route === null) {
    throw new TypeError("routeKey: no route has matched this request yet; mount the limiter on the route (app.post('/login', limit, handler)), where Express sets req.route");
  }
  return routeKeyOf((route as { path: string }).path, client);
}
