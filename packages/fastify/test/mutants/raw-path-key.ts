/**
 * Mutant: a route key over the URL as the client spelled it (`request.url`'s path) instead of the
 * route Fastify matched: `/api/%6Cogin` is a new bucket, and so is every `/api/users/:id`.
 * routeKeySuite must catch it.
 */
import type { FastifyRequest } from 'fastify';
import { routeKeyOf } from '@ratekeeper/core/adapter';

export const rawPathKey = (request: FastifyRequest, client: string | undefined): string => routeKeyOf(request.url.split('?')[0], client);
