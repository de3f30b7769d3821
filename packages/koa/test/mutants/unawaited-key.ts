/**
 * Mutant: an adapter that uses an async key function's answer without awaiting it, so every promise
 * becomes the key "[object Promise]" and all callers share one bucket. perCaller must catch it.
 */
import type { Context, Middleware } from 'koa';
import type { KoaRateLimitOptions } from '../../src/index.js';
import { rateLimit } from '../../src/index.js';

export function unawaitedKey(options: KoaRateLimitOptions): Middleware {
  const key = options.key;
  return rateLimit(key === undefined ? options : { ...options, key: (ctx: Context) => String(key(ctx)) });
}
