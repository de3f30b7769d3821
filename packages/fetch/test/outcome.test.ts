/**
 * Counting by outcome and settling the real cost over real HTTP (the adapter contract's outcome
 * suite): failed or successful responses given back, the cost settled by the bytes the runtime read.
 */
import { outcomeSuite } from '@ratekeeper/adapter-contract';
import { driver } from './helpers.js';

outcomeSuite([driver]);
