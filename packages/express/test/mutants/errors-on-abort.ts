/**
 * Mutant: an adapter that treats a client gone during the decision as an error and sends it to the
 * error path, which floods the logs (and error trackers) with every impatient client.
 * abortedClientsAreQuiet must catch it.
 */
import type { RequestHandler } from 'express';
import type { ExpressRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function errorsOnAbort(options: ExpressRateLimitOptions): RequestHandler {
  const real = rateLimit(options);
  return function rateLimitMutant(req, res, next) {
    real(req, res, (error?: unknown) => next(error ?? (req.socket.destroyed ? new Error('client closed the connection') : undefined)));
  };
}
