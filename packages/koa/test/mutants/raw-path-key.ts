/**
 * Mutant: a route key over the path as the client spelled it (`ctx.path`) instead of the route
 * @koa/router matched: `/API/login` and `/api/login/` are new buckets, and so is every
 * `/api/users/:id`. routeKeySuite must catch it.
 */
import type { Context } from 'koa';
import { routeKeyOf } from '@ratekeeper/core/adapter';

export const rawPathKey = (ctx: Context, client: string | undefined): string => routeKeyOf(ctx.path, client);
