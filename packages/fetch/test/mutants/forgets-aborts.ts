/**
 * Mutant: a check that forgets a request whose client left: its Response is returned without being
 * handed over, so the lease is never released. leasesSuite must catch it.
 */
import type { FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function forgetsAborts(options: FetchRateLimitOptions): FetchRateLimit {
  const real = rateLimit(options);
  const headers = (request: Request, response: Response) => (request.signal.aborted ? response : real.headers(request, response));
  return Object.assign((request: Request, client?: Parameters<FetchRateLimit>[1]) => real(request, client), { ...real, headers, finish: headers });
}
