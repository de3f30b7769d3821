/**
 * The per-request options, the header styles, the algorithm shorthands and the limited answer written
 * by a user's exception filter (the contract's handler): the adapter contract's options suite on Nest's
 * Express and Fastify platforms.
 */
import { optionsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

optionsSuite(drivers);
