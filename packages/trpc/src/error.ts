/**
 * A denied call leaves the middleware as a TRPCError: `TOO_MANY_REQUESTS` (tRPC answers it with HTTP
 * 429), `SERVICE_UNAVAILABLE` (503) when a store failing 'closed' decided, `FORBIDDEN` (403) for an
 * address on the deny list. Its `cause` is a RateLimitedError holding the decision and the wait.
 *
 * tRPC's error shape is the application's (its `errorFormatter`), so the retry time reaches the
 * client's `error.data` through one: `rateLimitErrorFormatter` as it is, or `retryAfterOf(error)`
 * inside the application's own formatter. The message never holds a key or a store's text.
 */
import { TRPCError } from '@trpc/server';
import type { Decision } from '@ratekeeper/core';

/** RateLimitedError is the cause of a denial's TRPCError: the decision and its wait. */
export class RateLimitedError extends Error {
  readonly decision: Decision;
  /** The wait after which the same call would be admitted, in ms (Infinity: never, for that cost). */
  readonly retryAfterMs: number;
  /** The Retry-After value, whole seconds rounded up; undefined when no wait can help. */
  readonly retryAfterSeconds: number | undefined;

  constructor(decision: Decision, retryAfterSeconds: number | undefined) {
    super(retryAfterSeconds === undefined ? 'Rate limit exceeded' : `Rate limit exceeded: retry after ${retryAfterSeconds} s`);
    this.name = 'RateLimitedError';
    this.decision = decision;
    this.retryAfterMs = decision.retryAfterMs;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** denialError is the TRPCError of a denial (see above). */
export function denialError(decision: Decision, status: number, retryAfterSeconds: number | undefined): TRPCError {
  const cause = new RateLimitedError(decision, retryAfterSeconds);
  const code = status === 503 ? 'SERVICE_UNAVAILABLE' : status === 403 ? 'FORBIDDEN' : 'TOO_MANY_REQUESTS';
  return new TRPCError({ code, message: cause.message, cause });
}

/** RetryData is what the formatter adds to a denial's `error.data`. */
export interface RetryData {
  readonly retryAfterMs: number;
  readonly retryAfterSeconds: number | undefined;
}

/** retryAfterOf is a denial's retry time, for an application's own errorFormatter; undefined for any other error. */
export function retryAfterOf(error: unknown): RetryData | undefined {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (!(cause instanceof RateLimitedError)) return undefined;
  return { retryAfterMs: cause.retryAfterMs, retryAfterSeconds: cause.retryAfterSeconds };
}

/**
 * rateLimitErrorFormatter is an errorFormatter (`initTRPC.create({ errorFormatter: rateLimitErrorFormatter })`)
 * that adds a denial's `retryAfterMs` and `retryAfterSeconds` to tRPC's default shape's `data`.
 */
export function rateLimitErrorFormatter<Shape extends { readonly data: object }>(opts: { readonly shape: Shape; readonly error: unknown }): Shape {
  const retry = retryAfterOf(opts.error);
  return retry === undefined ? opts.shape : { ...opts.shape, data: { ...opts.shape.data, ...retry } };
}
