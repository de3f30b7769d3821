/**
 * The limiter behind an adapter: either the ready `limiter` the caller passes (any core limiter, a
 * composite included, on any store) or one built from the `algorithm` shorthand with working
 * defaults, so that `rateLimit()` and `rateLimit({ algorithm: 'token-bucket' })` just work:
 *
 * - 'token-bucket' (the default): capacity 60, refillPerSecond 1 — bursts of 60, then 1 per second;
 * - 'sliding-window': limit 60 per windowMs 60,000;
 * - 'fixed-window': limit 60 per windowMs 60,000;
 * - 'sliding-log': limit 60 per windowMs 60,000, exact over any rolling minute (61 numbers per key);
 * - 'gcra': burst 60, emissionIntervalMs 1000 — GCRA's own parameters for the very same token bucket
 *   (core's GcraLimiter, an honest alias: capacity = burst, one token every emission interval; GCRA's
 *   tolerance τ is (burst − 1) · emissionIntervalMs). Its defaults are the token bucket's.
 * - 'concurrency': limit 10 requests in flight per key, each released when its response ends, a
 *   denial suggesting retryAfterMs 1,000 (ConcurrencyLimiter).
 *
 * Giving both `limiter` and shorthand options is an error, as is a shorthand option that the chosen
 * algorithm does not take (a silent ignore would hide a typo'd limit).
 */
import type { Clock } from '../clock.js';
import type { RateLimiter } from '../limiter.js';
import { ConcurrencyLimiter } from '../concurrency.js';
import { GcraLimiter } from '../gcra.js';
import { FixedWindowLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '../limiters.js';
import type { Store } from '../store.js';
import { describeValue } from '../validate.js';

export type AlgorithmShorthand = 'token-bucket' | 'sliding-window' | 'fixed-window' | 'sliding-log' | 'gcra' | 'concurrency';

export interface LimiterChoice {
  /** A ready limiter; when given, no shorthand option may be. */
  readonly limiter?: RateLimiter;
  /** Build a limiter of this algorithm instead (default 'token-bucket'). */
  readonly algorithm?: AlgorithmShorthand;
  readonly capacity?: number;
  readonly refillPerSecond?: number;
  readonly limit?: number;
  readonly windowMs?: number;
  /** 'gcra' only: T, the milliseconds between requests at the sustained rate (default 1000). */
  readonly emissionIntervalMs?: number;
  /** 'gcra' only: the most requests admitted at one instant (default 60). */
  readonly burst?: number;
  /** For 'concurrency': the wait a denial suggests, in milliseconds. */
  readonly retryAfterMs?: number;
  readonly name?: string;
  readonly store?: Store;
  readonly clock?: Clock;
}

const OWN: Record<AlgorithmShorthand, readonly string[]> = {
  'token-bucket': ['capacity', 'refillPerSecond'],
  'sliding-window': ['limit', 'windowMs'],
  'fixed-window': ['limit', 'windowMs'],
  'sliding-log': ['limit', 'windowMs'],
  gcra: ['emissionIntervalMs', 'burst'],
  concurrency: ['limit', 'retryAfterMs'],
};
/** Every shorthand option name (the plan accepts them; each limiter takes its own, see limiters.ts). */
export const SHORTHAND = ['algorithm', 'capacity', 'refillPerSecond', 'limit', 'windowMs', 'emissionIntervalMs', 'burst', 'retryAfterMs', 'name', 'store', 'clock'] as const;

/** given reads an option; null is refused rather than read as "use the default". */
function given<K extends keyof LimiterChoice>(owner: string, o: LimiterChoice, k: K): LimiterChoice[K] {
  if (o[k] === null) throw new TypeError(`${owner}: ${k} must not be null (leave it out for the default)`);
  return o[k];
}

/** chooseLimiter returns the caller's limiter or builds the shorthand one. */
export function chooseLimiter(owner: string, o: LimiterChoice): RateLimiter {
  const present = SHORTHAND.filter((k) => given(owner, o, k) !== undefined);
  if (given(owner, o, 'limiter') !== undefined) {
    if (present.length > 0) throw new TypeError(`${owner}: give either limiter or algorithm options, not both (got limiter and ${present.join(', ')})`);
    return checkLimiter(`${owner}: limiter`, o.limiter);
  }
  const algorithm = o.algorithm ?? 'token-bucket';
  const own = Object.hasOwn(OWN, algorithm) ? OWN[algorithm] : undefined;
  if (own === undefined) {
    throw new TypeError(`${owner}: algorithm must be 'token-bucket', 'sliding-window', 'fixed-window', 'sliding-log', 'gcra' or 'concurrency', got ${describeValue(algorithm)}`);
  }
  const stray = ['capacity', 'refillPerSecond', 'limit', 'windowMs', 'emissionIntervalMs', 'burst', 'retryAfterMs'].find(
    (k) => o[k as keyof LimiterChoice] !== undefined && !own.includes(k),
  );
  if (stray !== undefined) throw new TypeError(`${owner}: ${stray} does not apply to algorithm '${algorithm}'`);
  const common = { ...(o.name === undefined ? {} : { name: o.name }), ...(o.store === undefined ? {} : { store: o.store }), ...(o.clock === undefined ? {} : { clock: o.clock }) };
  if (algorithm === 'token-bucket') {
    return new TokenBucketLimiter({ capacity: o.capacity ?? 60, refillPerSecond: o.refillPerSecond ?? 1, ...common });
  }
  if (algorithm === 'gcra') return new GcraLimiter({ emissionIntervalMs: o.emissionIntervalMs ?? 1000, burst: o.burst ?? 60, ...common });
  if (algorithm === 'concurrency') return new ConcurrencyLimiter({ limit: o.limit ?? 10, ...(o.retryAfterMs === undefined ? {} : { retryAfterMs: o.retryAfterMs }), ...common });
  const windowed = { limit: o.limit ?? 60, windowMs: o.windowMs ?? 60_000, ...common };
  if (algorithm === 'sliding-log') return new SlidingLogLimiter(windowed);
  return algorithm === 'sliding-window' ? new SlidingWindowLimiter(windowed) : new FixedWindowLimiter(windowed);
}

/** checkLimiter accepts anything shaped like a RateLimiter; `what` names the option ("rateLimit: limiter"). */
export function checkLimiter(what: string, value: unknown): RateLimiter {
  const l = value as Partial<RateLimiter>;
  if (typeof l !== 'object' || l === null || typeof l.consume !== 'function' || !Array.isArray(l.policies)) {
    throw new TypeError(`${what} must be a ratekeeper RateLimiter, got ${describeValue(value)}`);
  }
  return value as RateLimiter;
}
