/**
 * The per-request options, the header styles and the algorithm shorthands: the adapter contract's
 * options suite on every Express major.
 */
import { optionsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

optionsSuite(drivers);
