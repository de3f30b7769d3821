/**
 * The limited-response handler's status through the real Fastify: a handler that only sends a body
 * answers 429 (503 for a 'closed' store failure), one that sets a status keeps it (the adapter
 * contract's handler-status suite, which the other adapters run from their options suite).
 */
import { handlerStatusSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './driver.js';

handlerStatusSuite(drivers);
