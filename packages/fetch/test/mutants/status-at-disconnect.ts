/**
 * Mutant: a check that hands over, for a request whose client left, the Response the client would
 * have seen at that moment (an empty 200) instead of its handler's answer: the login recipe gives
 * every aborted failed login back. abortedOutcomeSuite must catch it.
 */
import type { FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function reportsStatusAtDisconnect(options: FetchRateLimitOptions): FetchRateLimit {
  const real = rateLimit(options);
  const headers = (request: Request, response: Response) => (request.signal.aborted ? (real.finish(request, new Response(null)), response) : real.headers(request, response));
  return Object.assign((request: Request, client?: Parameters<FetchRateLimit>[1]) => real(request, client), { ...real, headers, finish: headers });
}
