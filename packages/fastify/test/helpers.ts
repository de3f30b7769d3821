/**
 * Test helpers: limiter wrappers that count and record what the adapter asks (so "exactly one consume
 * per request" is a count, not a guess), an asynchronous wrapper (a remote store's shape, decided at
 * call time, answered on a later tick), and header checks. Every limiter in these tests reads a
 * ManualClock: nothing sleeps.
 */
import type { Decision, Policy, RateLimiter } from '@ratekeeper/core';
import type { OutgoingHttpHeaders } from 'node:http';

import { counting } from '@ratekeeper/adapter-contract';

/** counting (shared with the Express and Koa suites) wraps a limiter and records every consume. */
export { counting };

/** later wraps a synchronous limiter so every answer is a promise settled on a later tick. */
export function later(inner: RateLimiter): RateLimiter<'async'> {
  const defer = <T>(value: T): Promise<T> => new Promise((resolve) => setImmediate(() => resolve(value)));
  return {
    mode: 'async',
    policies: inner.policies,
    consume: (key: string, cost?: number) => defer(inner.consume(key, cost) as Decision),
    peek: (key: string, cost?: number) => defer(inner.peek(key, cost) as Decision),
    allow: (key: string, cost?: number) => defer(inner.allow(key, cost) as boolean),
    reset: (key: string) => defer(inner.reset(key) as undefined),
  };
}

/** failing is an asynchronous limiter whose every answer is a rejection (a store breaking its contract). */
export function failing(policies: readonly Policy[], error: Error): RateLimiter<'async'> {
  const reject = (): Promise<never> => Promise.reject(error);
  return { mode: 'async', policies, consume: reject, peek: reject, allow: reject, reset: reject };
}

/** decidingWith is a synchronous limiter that answers `decide(decision)` for every consume. */
export function decidingWith(inner: RateLimiter, change: (decision: Decision) => Decision): RateLimiter {
  return { ...counting(inner).limiter, consume: (key: string, cost?: number) => change(inner.consume(key, cost) as Decision) };
}

const RATE_LIMIT_HEADERS = ['ratelimit', 'ratelimit-policy', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'];

/** rateLimitHeaders picks the rate-limit headers of a response, for exact comparisons. */
export function rateLimitHeaders(headers: OutgoingHttpHeaders | Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(RATE_LIMIT_HEADERS.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]]));
}

/** printable tells whether every header value is printable ASCII (no CR, LF, NUL, DEL or non-ASCII). */
export function printable(headers: Record<string, unknown>): boolean {
  return Object.values(headers).every((value) => [value].flat().every((v) => /^[\x20-\x7e]*$/.test(String(v))));
}
