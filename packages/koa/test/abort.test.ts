/**
 * A client that goes away while a remote store is still deciding: the adapter contract's abort suite
 * on every Koa major, with the mutant that throws an aborted client into Koa's error path.
 */
import { abortSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { errorsOnAbort } from './mutants/errors-on-abort.js';

abortSuite(drivers, { errorsOnAbort });
