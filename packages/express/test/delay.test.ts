/**
 * Delay mode over real HTTP: the adapter contract's delay suite on every Express major, with the mutant
 * that never releases the wait of a client that left.
 */
import { delaySuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { forgetsRelease } from './mutants/forgets-release.js';

delaySuite(drivers, { forgetsRelease });
