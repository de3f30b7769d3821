/**
 * The limited response (Retry-After never earlier than the truth, the problem+json body, the route
 * handler run exactly once per admission): the adapter contract's retry suite on every Express major.
 */
import { retrySuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

retrySuite(drivers);
