/**
 * The limited response (Retry-After never earlier than the truth, the problem+json body, downstream
 * middleware run exactly once per admission): the adapter contract's retry suite on every Koa major.
 */
import { retrySuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

retrySuite(drivers);
