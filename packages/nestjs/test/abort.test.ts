/**
 * A client that goes away while a remote store is still deciding: the adapter contract's abort suite
 * on both platforms, with the mutant that reports an aborted client as an error.
 */
import { abortSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { ErrorsOnAbort } from './mutants/guards.js';

abortSuite(drivers, { errorsOnAbort: ErrorsOnAbort });
