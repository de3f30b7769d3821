/**
 * Concurrency leases over HTTP end with the response (streams and SSE included), aborted ones too:
 * the adapter contract's leases suite on both platforms, with the mutant that forgets aborts.
 */
import { leasesSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { ForgetsAborts } from './mutants/guards.js';

leasesSuite(drivers, { forgetsAborts: ForgetsAborts });
