/**
 * GcraLimiter: the token bucket under the name and parameters GCRA users know. GCRA (the generic cell
 * rate algorithm) with emission interval T and burst tolerance τ admits a request arriving at t when
 * t ≥ TAT − τ and then moves the theoretical arrival time TAT to max(TAT, t) + T. That is exactly the
 * token bucket this package already runs (algorithms/token-bucket.ts keeps one number per key, the TAT,
 * on a clock counted in emission intervals) with capacity = burst = τ / T + 1 and one token every T.
 * So this is an alias, not a second algorithm: same step, same policy type ('token-bucket'), same Redis
 * script, same headers.
 *
 * `emissionIntervalMs` is kept exactly: the policy's `intervalMs` is T itself. (A TokenBucketLimiter
 * given refillPerSecond = 1000 / T computes intervalMs = 1000 / (1000 / T), which for about one integer
 * T in nine, 60 among them, is T plus one unit in the last place; for every other T the two decide
 * identically, and the tests prove it.) `burst` is the most requests admitted at one instant, the
 * bucket's capacity: GCRA's τ is (burst − 1) · T. Note that some GCRA libraries (redis-cell's
 * `max_burst`) count the burst beyond the first request: their max_burst + 1 is this `burst`.
 */
import { Limiter, type LimiterOptions } from './limiter.js';
import { tokenBucket } from '../algorithms/token-bucket.js';
import { type TokenBucketPolicy, nameNumber } from '../policy.js';
import type { Mode } from '../store/contract.js';
import { fail, optionsObject, policyName, positiveNumber, quota, refuseUnknown } from '../validate.js';

export interface GcraOptions<M extends Mode = 'sync'> extends LimiterOptions<M> {
  /** T: milliseconds between requests at the sustained rate (> 0 and at least 0.001: at most 1e6/s). */
  readonly emissionIntervalMs: number;
  /** The most requests admitted at one instant (a positive integer); τ = (burst − 1) · T. */
  readonly burst: number;
}

/** The option names GcraLimiter takes; any other is refused at construction. */
export const GCRA_OPTIONS: ReadonlySet<string> = new Set(['emissionIntervalMs', 'burst', 'clock', 'store', 'name']);

/** The bucket's bounds (bucket-and-window.ts): at most 1e6 per second, a full refill within 2^52 ms. */
const MIN_INTERVAL_MS = 1e-3;
const MAX_BURST_MS = 2 ** 52;

export class GcraLimiter<M extends Mode = 'sync'> extends Limiter<TokenBucketPolicy, M> {
  constructor(options: GcraOptions<M>) {
    const owner = 'GcraLimiter';
    const o = optionsObject(owner, options) as Partial<GcraOptions<M>>;
    refuseUnknown(owner, o, GCRA_OPTIONS);
    const T = positiveNumber(owner, 'emissionIntervalMs', o.emissionIntervalMs);
    if (T < MIN_INTERVAL_MS) fail(owner, 'emissionIntervalMs', `at least ${MIN_INTERVAL_MS} (at most 1e6 per second)`, T, 'number');
    const burst = quota(owner, 'burst', o.burst);
    if (burst * T > MAX_BURST_MS) fail(owner, 'emissionIntervalMs', `at most ${MAX_BURST_MS / burst} for burst ${burst} (a full refill within 2^52 ms)`, T, 'number');
    const name = o.name === undefined ? `gcra-${nameNumber(T)}-${nameNumber(burst)}` : policyName(owner, o.name);
    super(owner, tokenBucket, gcraPolicy(T, burst, name), o);
  }
}

/** gcraPolicy is the token bucket's policy with the emission interval kept exactly. */
function gcraPolicy(T: number, burst: number, name: string): TokenBucketPolicy {
  const burstMs = burst * T;
  return Object.freeze({
    algorithm: 'token-bucket',
    name,
    capacity: burst,
    refillPerSecond: 1000 / T,
    intervalMs: T,
    burstMs,
    limit: burst,
    windowMs: burstMs,
  });
}
