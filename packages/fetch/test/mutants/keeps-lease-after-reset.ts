/**
 * Mutant: a lease kept after an RST. Its `wrap` forgets a request whose client is gone: when the
 * Request's signal has aborted by the time the handler answers (over HTTP/2, @hono/node-server aborts
 * it when the client resets the stream), the handler's Response is returned without being handed
 * over, so the lease of every reset stream whose handler was admitted is never given back.
 * rapidResetSuite must catch it.
 */
import type { FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function keepsLeaseAfterReset(options: FetchRateLimitOptions): FetchRateLimit {
  const real = rateLimit(options);
  const wrap: FetchRateLimit['wrap'] =
    (handler, ip) =>
    async (request, ...rest) => {
      const limited = await real(request, { ip: ip(request, ...rest) });
      if (limited !== undefined) return limited;
      const response = await handler(request, ...rest);
      return request.signal.aborted ? response : real.headers(request, response);
    };
  return Object.assign((request: Request, client?: Parameters<FetchRateLimit>[1]) => real(request, client), { ...real, wrap });
}
