/**
 * Errors from the caller's functions go to Express's error path (a 500 from Express, the server keeps
 * serving), and hostile text never reaches a header: the adapter contract's errors suite on every
 * Express major.
 */
import { errorsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

errorsSuite(drivers);
