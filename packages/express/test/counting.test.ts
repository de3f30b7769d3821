/**
 * Exactly one consume per request and per mounted limiter (app-wide, on an express.Router, on one
 * route), on automatic HEAD and on 404s: the adapter contract's counting suite on every Express major.
 * Router-level middleware runs for every request under its mount path, so the router's limiter counts
 * /api/missing too: three of the table's requests.
 */
import { countingSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

countingSuite(drivers, { routerCounts: 3 });
