/**
 * Errors from the caller's functions reach Nest's exception layer (a 500, the server keeps serving),
 * and hostile text never reaches a header: the adapter contract's errors suite on both platforms.
 */
import { errorsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

errorsSuite(drivers);
