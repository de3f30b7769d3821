/** Counting by outcome and settling the real cost: the adapter contract's outcome suite on every Express major. */
import { outcomeSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

outcomeSuite(drivers);
