/**
 * Concurrency leases released on every response end, aborted ones included: the adapter contract's
 * leases suite on Hono. A client gone while the route still works is seen through the request's
 * signal; a middleware that never reads it (the ignores-gone mutant) keeps that lease.
 */
import { leasesSuite } from '@ratekeeper/adapter-contract';
import { driver } from './helpers.js';
import { ignoresGone } from './mutants/ignores-gone.js';

leasesSuite([driver], { forgetsAborts: ignoresGone });
