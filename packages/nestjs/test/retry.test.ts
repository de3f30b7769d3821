/**
 * The limited response (Retry-After never earlier than the truth, the problem+json body, the handler
 * run exactly once per admission): the adapter contract's retry suite on Nest's Express and Fastify
 * platforms.
 */
import { retrySuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

retrySuite(drivers);
