/**
 * Mutant: a check that reads whether the client is gone but never listens for it going (the Request
 * it is handed has the real signal's `aborted` and an event target that drops every listener), so in
 * delay mode a held request whose client went away keeps its booking until its instant: units spent
 * for nobody. clientLeavesNoTrace must catch it.
 */
import type { FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

/** deaf answers a signal that tells whether `signal` aborted but never calls a listener. */
export const deaf = (signal: AbortSignal) =>
  ({
    get aborted() {
      return signal.aborted;
    },
    addEventListener: () => {},
    removeEventListener: () => {},
  }) as unknown as AbortSignal;

export function forgetsRelease(options: FetchRateLimitOptions): FetchRateLimit {
  return rateLimit(options, (request) => ({ signal: deaf(request.signal) }) as Request);
}
