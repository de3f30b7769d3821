/**
 * Mutant: a check that treats a client gone during the decision as an error (its request's signal
 * aborted) and throws it at the runtime's error handler, flooding the logs with every impatient
 * client. abortedClientsAreQuiet must catch it.
 */
import type { ClientAddress, FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function errorsOnAbort(options: FetchRateLimitOptions): FetchRateLimit {
  const real = rateLimit(options);
  return Object.assign(
    async function rateLimitMutant(request: Request, client?: ClientAddress) {
      const limited = await real(request, client);
      if (request.signal.aborted) throw new Error('client closed the connection');
      return limited;
    },
    { now: real.now, nowKept: real.nowKept, decision: real.decision, headers: real.headers, finish: real.finish, writeHeaders: real.writeHeaders, run: real.run, wrap: real.wrap },
  );
}
