/**
 * Mutant: middleware that uses an async key function's answer without awaiting it, so every promise
 * becomes the key "[object Promise]" and all callers share one bucket. perCaller must catch it.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function unawaitedKey(options: HonoRateLimitOptions): MiddlewareHandler {
  const key = options.key;
  return rateLimit(key === undefined ? options : { ...options, key: (c: Context) => String(key(c)) });
}
