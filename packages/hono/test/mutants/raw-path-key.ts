/**
 * Mutant: a route key over the path as the client spelled it (the Request URL's pathname, before Hono
 * decodes it) instead of the route Hono matched: `/api/%6Cogin` is a new bucket, and so is every
 * `/api/users/:id`. routeKeySuite must catch it. (`c.req.path`, which Hono has already decoded and the
 * URL parser has rid of `/./` and `/../`, still mints a bucket per parameter value.)
 */
import type { Context } from 'hono';
import { routeKeyOf } from '@ratekeeper/core/adapter';

export const rawPathKey = (c: Context, client: string | undefined): string => routeKeyOf(new URL(c.req.url).pathname, client);
