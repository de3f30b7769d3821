/**
 * Policies: the immutable description of one limit. Every policy carries what the headers need (a
 * name, the quota `limit` and the `windowMs` it is granted over) beside its algorithm's own
 * parameters, which a remote store passes verbatim to its script. Two policies are one limit when
 * `samePolicy` says so (every field equal, the name included): what a store binds to one state, and
 * what limiter/store-names.ts tells apart from a clash. It lives here, below both, so the stores and
 * the limiters import it downward.
 */

export interface TokenBucketPolicy {
  readonly algorithm: 'token-bucket';
  readonly name: string;
  /** The bucket size: the largest burst, and the quota reported in headers. */
  readonly capacity: number;
  readonly refillPerSecond: number;
  /** Milliseconds to refill one token: 1000 / refillPerSecond. */
  readonly intervalMs: number;
  /** Milliseconds to refill an empty bucket: capacity × intervalMs. */
  readonly burstMs: number;
  readonly limit: number;
  readonly windowMs: number;
}

/** The windowed algorithms: a quota of `limit` per `windowMs`. */
export type WindowAlgorithm = 'sliding-window' | 'fixed-window' | 'first-request-window' | 'sliding-log';

export interface WindowPolicy<A extends WindowAlgorithm> {
  readonly algorithm: A;
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

export type SlidingWindowPolicy = WindowPolicy<'sliding-window'>;
export type FixedWindowPolicy = WindowPolicy<'fixed-window'>;
export type FirstRequestWindowPolicy = WindowPolicy<'first-request-window'>;
export type SlidingLogPolicy = WindowPolicy<'sliding-log'>;
/**
 * A concurrency limit: at most `limit` leases (requests in flight) per key at once. Time does not refill
 * it, a release does, so it has no window: `windowMs` is 0 and the RateLimit-Policy item carries
 * `qu="concurrent-requests"` instead of `w`. `retryAfterMs` is the wait a denial suggests (a hint: no
 * instant at which a lease returns is known).
 */
export interface ConcurrencyPolicy {
  readonly algorithm: 'concurrency';
  readonly name: string;
  readonly limit: number;
  readonly windowMs: 0;
  readonly retryAfterMs: number;
}

export type Policy = TokenBucketPolicy | SlidingWindowPolicy | FixedWindowPolicy | FirstRequestWindowPolicy | SlidingLogPolicy | ConcurrencyPolicy;
export type AlgorithmName = Policy['algorithm'];

/**
 * nameNumber writes a size into a derived policy name (`tb-60-1`, `gcra-1000-60`), short enough for a
 * header and never lossy (a name is also the key of the policy's state on a shared store, so two
 * settings must never derive one name): a whole number as it is, but with six or more trailing zeros
 * as a power of ten (1000000000 → `1e9`); a short fraction as it is (`0.5`); a long one that is a
 * whole number per minute, hour or day as that (1e9 per hour → `1e9_h`, 1/60 → `1_min`: characters
 * a header-safe name may hold); any other fraction exactly as JavaScript writes it.
 */
export function nameNumber(n: number): string {
  if (Number.isInteger(n)) {
    const zeros = /0{6,}$/.exec(String(n))?.[0].length ?? 0;
    return zeros === 0 ? String(n) : `${String(n).slice(0, -zeros)}e${zeros}`;
  }
  if (String(n).length <= 8) return String(n);
  for (const [per, unit] of PER) {
    const whole = Math.round(n * per);
    if (whole / per === n) return `${nameNumber(whole)}_${unit}`;
  }
  return String(n);
}

const PER: readonly (readonly [number, string])[] = [
  [60, 'min'],
  [3600, 'h'],
  [86_400, 'd'],
];

/** tokenBucketPolicy derives a token bucket's policy from already validated options. */
export function tokenBucketPolicy(capacity: number, refillPerSecond: number, name?: string): TokenBucketPolicy {
  const intervalMs = 1000 / refillPerSecond;
  const burstMs = capacity * intervalMs;
  return Object.freeze({
    algorithm: 'token-bucket',
    name: name ?? `tb-${nameNumber(capacity)}-${nameNumber(refillPerSecond)}`,
    capacity,
    refillPerSecond,
    intervalMs,
    burstMs,
    limit: capacity,
    windowMs: burstMs,
  });
}

const PREFIX: Record<WindowAlgorithm, string> = { 'sliding-window': 'sw', 'fixed-window': 'fw', 'first-request-window': 'frw', 'sliding-log': 'sl' };

/** windowPolicy builds a sliding-window, fixed-window, first-request-window or sliding-log policy from already validated options. */
export function windowPolicy<A extends WindowAlgorithm>(algorithm: A, limit: number, windowMs: number, name?: string): WindowPolicy<A> {
  return Object.freeze({ algorithm, name: name ?? `${PREFIX[algorithm]}-${limit}-${windowMs}`, limit, windowMs });
}

/** concurrencyPolicy builds a concurrency policy from already validated options. */
export function concurrencyPolicy(limit: number, retryAfterMs: number, name?: string): ConcurrencyPolicy {
  return Object.freeze({ algorithm: 'concurrency', name: name ?? `cc-${limit}`, limit, windowMs: 0, retryAfterMs });
}

/** samePolicy: the same algorithm with the same parameters (policies are flat frozen records). */
export function samePolicy(a: Policy, b: Policy): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!Object.is((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k])) return false;
  return true;
}
