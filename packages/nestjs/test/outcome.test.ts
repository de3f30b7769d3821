/** Counting by outcome and settling the real cost: the adapter contract's outcome suite on both platforms. */
import { outcomeSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

outcomeSuite(drivers);
