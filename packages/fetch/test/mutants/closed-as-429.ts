/**
 * Mutant: a check that answers every blocked request with a hard-coded 429, so a store failing
 * 'closed' looks like the client's fault. closedFailureIs503 must catch it.
 */
import type { ClientAddress, FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function closedAs429(options: FetchRateLimitOptions): FetchRateLimit {
  const real = rateLimit(options);
  return Object.assign(
    async function rateLimitMutant(request: Request, client?: ClientAddress) {
      const limited = await real(request, client);
      return limited === undefined ? undefined : new Response(limited.body, { status: 429, headers: limited.headers });
    },
    { now: real.now, nowKept: real.nowKept, decision: real.decision, headers: real.headers, finish: real.finish, writeHeaders: real.writeHeaders, run: real.run, wrap: real.wrap },
  );
}
