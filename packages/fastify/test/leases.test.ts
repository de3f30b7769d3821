/** Concurrency leases released on every response end, aborted ones included: the adapter contract's leases suite on Fastify. */
import { leasesSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './driver.js';
import { forgetsAborts } from './mutants/forgets-aborts.js';

leasesSuite(drivers, { forgetsAborts: forgetsAborts as never });
