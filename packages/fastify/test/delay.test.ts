/**
 * Delay mode over real HTTP: the adapter contract's delay suite on Fastify, with the mutant
 * that never releases the wait of a client that left.
 */
import { delaySuite } from '@ratekeeper/adapter-contract';
import { drivers } from './driver.js';
import { forgetsRelease } from './mutants/forgets-release.js';

delaySuite(drivers, { forgetsRelease });
