/**
 * routeKey is the key of "this client on this route" for Koa with @koa/router: core's routeKeyOf over
 * the route template @koa/router matched (`ctx._matchedRoute`, with the router's prefix: `/api/users/:id`),
 * so every spelling the router sends to the handler (`/API/users/7`, `/api/users/7/`: it matches
 * without case or a trailing slash by default) counts in the route's one bucket, and rotating a
 * parameter mints none.
 *
 * Mount the limiter on the route (`router.post('/login', limit, login)`, or one limiter on several
 * routes), where `_matchedRoute` is that route's template. In `router.use(limit)` it is the `use`
 * layer's own path, so all the router's routes share one bucket; before the router (`app.use`) no
 * route has matched, and routeKey throws a TypeError naming the fix rather than count every route in
 * one bucket. `client` is the default key the middleware hands every key (the client IP's), or any
 * identity of yours: `key: (ctx) => routeKey(ctx, ctx.state.user.id)`.
 */
import type { Context } from 'koa';
import { type RouteTemplate, routeKeyOf } from '@ratekeeper/core/adapter';

/** routeKey keys `ctx` by `client` on the route @koa/router matched; use it as the `key` option of a limiter mounted on routes. */
export function routeKey(ctx: Context, client: string | undefined): string {
  const route = (ctx as { _matchedRoute?: RouteTemplate | undefined })._matchedRoute;
  if (route === undefined || route === null) {
    throw new TypeError(
      "routeKey: no @koa/router route has matched this request yet; mount the limiter on the route (router.post('/login', limit, handler)), where ctx._matchedRoute is set",
    );
  }
  return routeKeyOf(route, client);
}
