/**
 * Mutant: an adapter that uses an async key function's answer without awaiting it, so every promise
 * becomes the key "[object Promise]" and all callers share one bucket. perCaller must catch it.
 */
import type { Request, RequestHandler } from 'express';
import type { ExpressRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function unawaitedKey(options: ExpressRateLimitOptions): RequestHandler {
  const key = options.key;
  return rateLimit(key === undefined ? options : { ...options, key: (req: Request) => String(key(req)) });
}
