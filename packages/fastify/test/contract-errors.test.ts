/**
 * Errors from the caller's functions go to Fastify's error path (a 500, the server keeps serving), and
 * hostile text never reaches a header: the adapter contract's errors suite, through real HTTP.
 */
import { errorsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './driver.js';

errorsSuite(drivers);
