/**
 * Mutant: a check that uses an async key function's answer without awaiting it, so every promise
 * becomes the key "[object Promise]" and all callers share one bucket. perCaller must catch it.
 */
import type { FetchRateLimit, FetchRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function unawaitedKey(options: FetchRateLimitOptions): FetchRateLimit {
  const key = options.key;
  return rateLimit(key === undefined ? options : { ...options, key: (request: Request) => String(key(request)) });
}
