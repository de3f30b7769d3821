/**
 * Mutant: a route key over the path as the client spelled it (the Request URL's pathname) instead of
 * the route's pattern: `/api/./login` parses to `/api/login`, but `/api/%6Cogin` and `/api/login;p`
 * are new buckets, and so is every `/api/users/:id`. routeKeySuite must catch it.
 */
import { routeKeyOf } from '@ratekeeper/core/adapter';

export const rawPathKey =
  (_pattern: string) =>
  (request: Request, client: string | undefined): string =>
    routeKeyOf(new URL(request.url).pathname, client);
