/** Concurrency leases on Redis come back after a short outage: the adapter contract's pause suite, over real HTTP. */
import { pauseSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

pauseSuite(drivers);
