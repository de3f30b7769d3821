/**
 * Mutant: `run` written as the bare check-then-headers pattern (the README's step by step form
 * before `run`): a handler that throws never hands a Response over, so its lease stays taken, and
 * three throws lock a limit of three for good. The run test must catch it.
 */
import type { ClientAddress, FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function leaksOnThrow(options: FetchRateLimitOptions): FetchRateLimit {
  const real = rateLimit(options);
  const run = async (request: Request, client: ClientAddress | undefined, handler: (request: Request) => Response | Promise<Response>) => {
    const limited = await real(request, client);
    if (limited !== undefined) return limited;
    const response = await handler(request);
    return real.headers(request, response);
  };
  return Object.assign((request: Request, client?: ClientAddress) => real(request, client), { ...real, run });
}
