/**
 * Mutant: a lease kept after an RST. Over HTTP/2 a stream the client reset aborts its Request's signal
 * (@hono/node-server aborts it when the stream closes), as an HTTP/1 client that disconnects does, so
 * the defect is the forgets-aborts one: the route's answer to a client that is gone is never handed
 * over, and the lease of every reset stream whose handler was admitted is never given back.
 * rapidResetSuite must catch it.
 */
export { forgetsAborts as keepsLeaseAfterReset } from './forgets-aborts.js';
