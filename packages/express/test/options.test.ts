/**
 * The per-request options, the header styles and the algorithm shorthands (the first-request window
 * per route too): the adapter contract's
 * options suite on every Express major.
 */
import { firstRequestRoutesSuite, optionsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

optionsSuite(drivers);
firstRequestRoutesSuite(drivers);
