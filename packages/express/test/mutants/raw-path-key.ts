/**
 * Mutant: a route key over the path as the client spelled it (`req.path`) instead of the route Express
 * matched: `/API/login` and `/api/login/` are new buckets, and so is every `/api/users/:id`.
 * routeKeySuite must catch it.
 */
import type { Request } from 'express';
import { routeKeyOf } from '@ratekeeper/core/adapter';

export const rawPathKey = (req: Request, client: string | undefined): string => routeKeyOf(req.path, client);
