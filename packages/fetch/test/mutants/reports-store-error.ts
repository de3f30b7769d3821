/**
 * Mutant: a check that fails closed on a store error by answering 500 with the error's text, so the
 * store's message (a connection string, a password) reaches the client. secretNeverLeaks must catch it.
 */
import { ipKey } from '@ratekeeper/core';
import type { ClientAddress, FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function reportsStoreError(options: FetchRateLimitOptions): FetchRateLimit {
  const real = rateLimit(options);
  const limiter = options.limiter!;
  return Object.assign(
    async function rateLimitMutant(request: Request, client?: ClientAddress) {
      try {
        await limiter.consume(ipKey(client?.ip) ?? 'unknown');
      } catch (error) {
        return Response.json({ error: 'rate limiter unavailable', reason: String(error) }, { status: 500 });
      }
      return undefined;
    },
    { now: real.now, nowKept: real.nowKept, decision: real.decision, headers: real.headers, finish: real.finish, writeHeaders: real.writeHeaders, run: real.run, wrap: real.wrap },
  );
}
