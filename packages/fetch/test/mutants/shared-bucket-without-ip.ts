/**
 * Mutant: a check that counts a request without a usable address under one fallback key, so every
 * such request (a misconfigured proxy header, a runtime that reports none) shares one bucket, with the
 * client who really has that address: one client then locks all of them out. addresslessNeverShared
 * must catch it.
 */
import type { ClientAddress, FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function sharedBucketWithoutIp(options: FetchRateLimitOptions): FetchRateLimit {
  const real = rateLimit(options);
  return Object.assign(
    async function rateLimitMutant(request: Request, client?: ClientAddress) {
      return real(request, { ip: client?.ip || '192.0.2.1' });
    },
    { now: real.now, nowKept: real.nowKept, decision: real.decision, headers: real.headers, finish: real.finish, writeHeaders: real.writeHeaders, run: real.run, wrap: real.wrap },
  );
}
