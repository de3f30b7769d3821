/**
 * Exactly one consume per request and per mounted limiter (app-wide, router-wide on @koa/router, on
 * one route), on HEAD and on 404s: the adapter contract's counting suite on every Koa major.
 * @koa/router runs router-level middleware only for a request that matches one of its routes, so the
 * router's limiter never sees /api/missing: two of the table's requests.
 */
import { countingSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

countingSuite(drivers, { routerCounts: 2 });
