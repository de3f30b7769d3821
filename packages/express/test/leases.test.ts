/** Concurrency leases released on every response end, aborted ones included: the adapter contract's leases suite on every Express major. */
import { leasesSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { forgetsAborts } from './mutants/forgets-aborts.js';

leasesSuite(drivers, { forgetsAborts });
