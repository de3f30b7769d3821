/**
 * LeasedLimiter's arguments, validated once at construction: a TypeError for a wrong type or a limiter
 * lease mode cannot serve, a RangeError for a number out of range, each naming the class, the option
 * and the value; an unknown option name is a TypeError. The caller's object is never mutated.
 *
 * Only a token bucket (TokenBucketLimiter, or GcraLimiter, the same bucket) on a RedisStore can be
 * leased: units taken from a bucket at one instant and spent later never add to its total (see
 * ./leased.ts). A window's count cannot be spent later: units counted in one fixed window and spent in
 * the next let that window admit limit + k, and a sliding log or counter records the units at the
 * take, so spending them later can exceed the limit in a later interval.
 */
import { Limiter, type RateLimiter, type TokenBucketPolicy } from '@ratekeeper/core';
import { describeValue, refuseUnknown } from '@ratekeeper/core/store';
import { RedisBinding } from '../binding.js';

/** LeasedLimiter's options. */
export interface LeasedOptions {
  /** k: the most units this process holds per key (taken and not yet spent); 1 to the bucket's capacity. */
  readonly units: number;
  /** How long units may be spent after their take was sent, in ms (default 1000; 1 to 60,000). */
  readonly ttlMs?: number;
  /** The most keys holding a lease in this process (default 1000; 1 to 1,000,000). */
  readonly maxKeys?: number;
}

/** The validated arguments. */
export interface ResolvedLease {
  readonly inner: Limiter<TokenBucketPolicy, 'async'>;
  readonly binding: RedisBinding<TokenBucketPolicy>;
  readonly units: number;
  readonly ttlMs: number;
  readonly maxKeys: number;
}

/** LeasedLimiter's default `ttlMs`: the units a process prefetched may be spent until 1 s after their take was sent. */
export const DEFAULT_LEASED_TTL_MS = 1000;
/** The default `maxKeys`: at most 1000 keys hold a lease per LeasedLimiter. */
export const DEFAULT_LEASE_KEYS = 1000;
const OWNER = 'LeasedLimiter';
const KNOWN: ReadonlySet<string> = new Set(['units', 'ttlMs', 'maxKeys']);

function fail(option: string, want: string, value: unknown): never {
  const message = `${OWNER}: ${option} must be ${want}, got ${describeValue(value)}`;
  throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
}

function integer(option: string, value: unknown, min: number, max: number, what = ''): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(option, `an integer from ${min} to ${max}${what}`, value);
  return value;
}

/** className names a limiter for a message: its class, or what describeValue says. */
function className(value: unknown): string {
  const name = (value as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof value === 'object' && value !== null && typeof name === 'string' ? `a ${name}` : describeValue(value);
}

function leasable(limiter: RateLimiter<'async'>): Limiter<TokenBucketPolicy, 'async'> {
  const want = 'a TokenBucketLimiter or GcraLimiter on a RedisStore';
  if (!(limiter instanceof Limiter)) throw new TypeError(`${OWNER}: limiter must be ${want}, got ${className(limiter)}`);
  const algorithm = (limiter.policy as { algorithm: string }).algorithm;
  if (algorithm !== 'token-bucket') {
    throw new TypeError(`${OWNER}: limiter must be ${want} (units spent after their take fit only a token bucket's limit), got ${className(limiter)} (algorithm '${algorithm}')`);
  }
  if (!(limiter.binding instanceof RedisBinding)) throw new TypeError(`${OWNER}: limiter must be ${want}, got ${className(limiter)} on ${className(limiter.store)}`);
  return limiter as Limiter<TokenBucketPolicy, 'async'>;
}

/** resolveLease validates the arguments and fills in the defaults. */
export function resolveLease(limiter: RateLimiter<'async'>, options: LeasedOptions): ResolvedLease {
  const inner = leasable(limiter);
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail('options', 'an object with units', options);
  refuseUnknown(OWNER, options, KNOWN);
  const capacity = inner.policy.capacity;
  return {
    inner,
    binding: inner.binding as RedisBinding<TokenBucketPolicy>,
    units: integer('units', options.units, 1, capacity, " (the bucket's capacity)"),
    ttlMs: options.ttlMs === undefined ? DEFAULT_LEASED_TTL_MS : integer('ttlMs', options.ttlMs, 1, 60_000),
    maxKeys: options.maxKeys === undefined ? DEFAULT_LEASE_KEYS : integer('maxKeys', options.maxKeys, 1, 1_000_000),
  };
}
