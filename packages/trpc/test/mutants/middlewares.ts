/**
 * Mutants: the tRPC middleware with one defect each, built around the real one so that everything
 * else stays as shipped. Each is caught by the test its name points at.
 */
import { TRPCError } from '@trpc/server';
import { type Middleware } from '../support/servers.js';
import { rateLimit, type TrpcRateLimitOptions } from '../../src/index.js';

/** Counts a batch once: a call whose HTTP request was already counted goes on uncounted. */
export function countsBatchOnce(options?: TrpcRateLimitOptions): Middleware {
  const real = rateLimit(options);
  const seen = new WeakSet<object>();
  return (opts) => {
    const req = (opts.ctx as { req: object }).req;
    if (seen.has(req)) return opts.next();
    seen.add(req);
    return real(opts);
  };
}

/** Hands the limiter's own error on to the client (its text included). */
export function forwardsRawError(options?: TrpcRateLimitOptions): Middleware {
  const real = rateLimit(options);
  return async (opts) => {
    try {
      return await real(opts);
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof Error) throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: cause.message });
      throw error;
    }
  };
}

/** Answers a 'closed' store failure as TOO_MANY_REQUESTS. */
export function closedAs429(options?: TrpcRateLimitOptions): Middleware {
  const real = rateLimit(options);
  return async (opts) => {
    try {
      return await real(opts);
    } catch (error) {
      if (error instanceof TRPCError && error.code === 'SERVICE_UNAVAILABLE') throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: error.message, cause: error.cause });
      throw error;
    }
  };
}

/** Releases a lease when the middleware admits, before the resolver has run. */
export function releasesAtAdmission(options: TrpcRateLimitOptions & { limiter: { release(key: string): unknown } }): Middleware {
  const real = rateLimit(options);
  return (opts) => real({ ...opts, next: () => (options.limiter.release('k'), opts.next()) });
}

/** Counts a call whose client left during an async lookup (the abort signal never reaches core). */
export function ignoresGone(options?: TrpcRateLimitOptions): Middleware {
  const real = rateLimit(options);
  return (opts) => real({ ...opts, signal: undefined });
}
