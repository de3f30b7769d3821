/**
 * ConcurrencyLimiter caps the requests in flight per key: `consume(key, cost)` takes a lease of `cost`
 * units while the key's leased units plus `cost` stay within `limit`, and `release(key, cost)` gives
 * them back when the request is over. Nothing returns by waiting, only by a release: a caller that
 * takes a lease must release it exactly once, on every path (completed, failed, aborted). The adapters
 * do this for every admitted request when its work is over, not when its client disconnects
 * (http/settle/work.ts).
 *
 *   const inFlight = new ConcurrencyLimiter({ limit: 10 });
 *   if (inFlight.allow(user)) try { await work() } finally { inFlight.release(user) }
 *
 * - `release` never takes a key below zero leases: a release without a lease does nothing. On the
 *   memory store it is exact; on Redis each process releases the leases it took (by lease id), and the
 *   leases of a crashed process expire by themselves after the store's lease TTL (@ratekeeper/redis).
 * - `refund` is `release`: giving a lease back is what refunding it means (so `BanLimiter` and other
 *   refund callers work unchanged).
 * - A denial changes nothing. Its `retryAfterMs` is the `retryAfterMs` option (default 1000 ms), a
 *   hint rather than a promise: no one knows when a request in flight will end, so no wait is honest,
 *   and a short one lets a well-behaved client retry without hammering. A cost above `limit` is never
 *   satisfiable (no Retry-After).
 * - Composes with rate limits in a CompositeLimiter, all or nothing (a request the rate limit denies
 *   takes no lease, and a request denied a lease spends no rate); the composite's `release` returns
 *   the leases only.
 * - On the memory store, a key holding leases is never evicted (memory/memory-binding.ts).
 * - A store whose bindings cannot refund is refused at construction: nothing could release a lease.
 */
import { concurrency } from '../algorithms/concurrency.js';
import { Limiter, type LimiterOptions } from './limiter.js';
import { type ConcurrencyPolicy, concurrencyPolicy } from '../policy.js';
import type { Mode, Result } from '../store/contract.js';
import { describeValue, optionsObject, policyName, positiveInteger, quota, refuseUnknown } from '../validate.js';

export interface ConcurrencyOptions<M extends Mode = 'sync'> extends LimiterOptions<M> {
  /** Most units in flight per key at once (a positive integer). */
  readonly limit: number;
  /** The wait a denial suggests, in milliseconds (a positive integer, default 1000): Retry-After 1. */
  readonly retryAfterMs?: number;
}

export const CONCURRENCY_OPTIONS: ReadonlySet<string> = new Set(['limit', 'retryAfterMs', 'clock', 'store', 'name']);
const DEFAULT_RETRY_AFTER_MS = 1000;

/** ConcurrencyLimiter admits at most `limit` leases in flight per key (see the contract above). */
export class ConcurrencyLimiter<M extends Mode = 'sync'> extends Limiter<ConcurrencyPolicy, M> {
  constructor(options: ConcurrencyOptions<M>) {
    const owner = 'ConcurrencyLimiter';
    const o = optionsObject(owner, options) as Partial<ConcurrencyOptions<M>>;
    refuseUnknown(owner, o, CONCURRENCY_OPTIONS);
    const limit = quota(owner, 'limit', o.limit);
    const retryAfterMs = o.retryAfterMs === undefined ? DEFAULT_RETRY_AFTER_MS : positiveInteger(owner, 'retryAfterMs', o.retryAfterMs);
    const name = o.name === undefined ? undefined : policyName(owner, o.name);
    super(owner, concurrency, concurrencyPolicy(limit, retryAfterMs, name), o);
    // A lease goes back through the binding's refund: a store without one would keep every lease forever.
    if (typeof this.binding.refund !== 'function') throw new TypeError(`${owner}: store must be able to release leases (its bindings need refund), got ${describeValue(o.store)}`);
  }

  /** release returns `cost` (default 1) leased units of `key`, never below zero. */
  release(key: string, cost = 1): Result<M, void> {
    return this.refund(key, cost);
  }
}
