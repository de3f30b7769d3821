/**
 * Mutant: a check that never asks whether the client is still there (it reads the signal of a
 * stand-in Request that never aborts), so a client gone during an async key lookup is counted and
 * the handler runs for nobody. goneClientUncounted must catch it.
 */
import type { FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

const present = { signal: new AbortController().signal } as Request;

export function ignoresGone(options: FetchRateLimitOptions): FetchRateLimit {
  return rateLimit(options, () => present);
}
