/**
 * Limiters sharing one store through Express's router, on memory and on Redis: the adapter contract's
 * shared-names suite (a second limiter with the same derived name is refused; one given name is one budget).
 */
import { sharedNamesSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

sharedNamesSuite(drivers);
