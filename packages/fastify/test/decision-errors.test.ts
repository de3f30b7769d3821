/**
 * No error in the decision path loses a request or the process, on a synchronous and an asynchronous
 * limiter: the adapter contract's decision-errors suite, through real HTTP on Fastify 5.
 */
import { decisionErrorsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './driver.js';

decisionErrorsSuite(drivers);
