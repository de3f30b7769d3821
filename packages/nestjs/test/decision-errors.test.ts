/**
 * No error in the decision path loses a request or the process, on a synchronous and an asynchronous
 * limiter: the adapter contract's decision-errors suite on both platforms.
 */
import { decisionErrorsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

decisionErrorsSuite(drivers);
