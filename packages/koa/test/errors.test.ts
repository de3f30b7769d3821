/**
 * Errors from the caller's functions go to Koa's error path (a generic 500 from Koa, the 'error'
 * event, the server keeps serving), and hostile text never reaches a header or the body: the adapter
 * contract's errors suite on every Koa major.
 */
import { errorsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

errorsSuite(drivers);
