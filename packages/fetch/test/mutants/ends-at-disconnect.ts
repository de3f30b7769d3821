/**
 * Mutant: a check that ends an admitted request's work when its client disconnects (its Request's
 * signal aborts, or had when the lease was taken): it hands an empty Response over at that moment,
 * so the lease goes back while the handler still works, as @ratekeeper/fetch did before. workSuite
 * must catch it.
 */
import type { ClientAddress, FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function releasesAtDisconnect(options: FetchRateLimitOptions): FetchRateLimit {
  const real = rateLimit(options);
  return Object.assign(
    async function rateLimitMutant(request: Request, client?: ClientAddress) {
      const limited = await real(request, client);
      const ends = () => void real.finish(request, new Response(null));
      if (limited !== undefined) return limited;
      if (request.signal.aborted) ends();
      else request.signal.addEventListener('abort', ends, { once: true });
      return limited;
    },
    { now: real.now, nowKept: real.nowKept, decision: real.decision, headers: real.headers, finish: real.finish, writeHeaders: real.writeHeaders, run: real.run, wrap: real.wrap },
  );
}
