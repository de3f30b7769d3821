/**
 * Bans: "5 failed logins per 15 minutes, then the key is blocked for an hour".
 *
 *   const login = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 5, windowMs: 900_000 }), banMs: 3_600_000 });
 *
 * A ban is state beside the algorithm's, not a step of it, so it is a capability of the Store contract
 * (../store/contract.ts), which a store implements next to `bind`: `store.banned(binding, banMs)` returns a binding
 * that decides with the ban in front of the algorithm, atomically (the memory store in one synchronous
 * pass; Redis in the same single script call, so a decision still costs one round trip). A limiter on a
 * store without it is refused at construction.
 *
 * Guarantees, on every store:
 * - while a key is banned, every request is denied with `retryAfterMs` and `resetAfterMs` equal to the
 *   time left in the ban and `remaining` 0 (so Retry-After and RateLimit are honest), and such a denial
 *   changes nothing: not the ban's end, not the algorithm's state;
 * - outside a ban, requests are decided by the wrapped limiter; the first denial it gives (a request
 *   that waiting could cure) starts a ban of `banMs` from that instant, and is answered as the ban's
 *   first denial. A cost no policy can ever grant is denied without a ban (a bad request, not abuse);
 * - `peek` reports what consume would answer and starts nothing; `reset` lifts the ban and empties the
 *   key;
 * - `refund` gives back to the wrapped limiter and then, during a ban, lifts it when the wrapped limiter
 *   now admits the cost whose denial started it. Charges are made before outcomes are known
 *   (`countOutcome`), so six concurrent logins that all succeed see the sixth denied; that denial was
 *   owed to charges that do not count. While a key is banned nothing is charged, so a refund during a
 *   ban gives back a charge made before it. A ban therefore stands only when the charges that still
 *   count leave no room for the denied request: a run of failures (nothing refunded) is banned for the
 *   whole of `banMs`, and a lifted ban admits no more than the wrapped limiter itself would. A refund of
 *   a charge the limiter had already forgotten (a request that outlived its window) is given where the
 *   limiter gives it (its refund step), and may lift a ban as any refund does.
 *
 * Besides the bans its denials start, a key can be banned directly: `block(key, ms)` (rate-limiter-
 * flexible's `block`) bans it from now for `ms` on the store, so every process sharing the store sees
 * it; the ban ends at now + ms, or later if a running ban ends later (a block never shortens a ban),
 * and no refund lifts it (only `reset` does). During any ban decisions are denied as above, with
 * Retry-After the time left. `usage(key)` reads the wrapped limiter's Usage with the ban's time left in
 * `blockedMs` (and nothing remaining while it stands); `charge(key, cost)` charges the wrapped limiter,
 * ban or not, and starts no ban.
 */
import type { Clock } from '../clock.js';
import type { Decision } from '../decision.js';
import { Limiter, type RateLimiter } from './limiter.js';
import type { Policy } from '../policy.js';
import type { Mode, Result, Store, StoreBinding } from '../store/contract.js';
import type { Usage } from '../usage.js';
import { describeValue, isCost, positiveInteger, refuseCall, refuseUnknown } from '../validate.js';

/** Bans is the ban capability of the Store contract (Store.banned) on its own: a store that offers it. */
export type Bans<M extends Mode = Mode> = Required<Pick<Store<M>, 'banned'>>;

export interface BanOptions<M extends Mode> {
  /** The limiter whose denial starts a ban (a single-policy core limiter). */
  readonly limiter: RateLimiter<M>;
  /** How long a ban lasts, in milliseconds (a positive integer). */
  readonly banMs: number;
}

const OWNER = 'BanLimiter';
const BAN_OPTIONS: ReadonlySet<string> = new Set(['limiter', 'banMs']);

/** BanLimiter is a limiter whose denials ban the key for `banMs` (see the contract above). */
export class BanLimiter<M extends Mode = 'sync'> implements RateLimiter<M> {
  readonly mode: M;
  readonly policies: readonly Policy[];
  readonly banMs: number;
  readonly #clock: Clock;
  readonly #binding: StoreBinding<M>;
  readonly #inner: Limiter<Policy, M>;

  constructor(options: BanOptions<M>) {
    if (typeof options !== 'object' || options === null) throw new TypeError(`${OWNER}: options must be an object, got ${describeValue(options)}`);
    refuseUnknown(OWNER, options, BAN_OPTIONS);
    const inner = options.limiter;
    if (!(inner instanceof Limiter)) throw new TypeError(`${OWNER}: limiter must be a single-policy ratekeeper limiter, got ${describeValue(inner)}`);
    // A lease must be released by whoever took it; a ban in front would hide the release.
    if (inner.policy.algorithm === 'concurrency') throw new TypeError(`${OWNER}: bans apply to rate limits, not to a ConcurrencyLimiter`);
    this.banMs = positiveInteger(OWNER, 'banMs', options.banMs);
    const store: Store<M> = inner.store;
    if (typeof store.banned !== 'function') throw new TypeError(`${OWNER}: limiter must be on a store with bans (Store.banned), got ${storeName(store)}`);
    this.#inner = inner as Limiter<Policy, M>;
    this.#binding = store.banned(inner.binding, this.banMs);
    this.#clock = inner.clock;
    this.mode = inner.mode;
    this.policies = inner.policies;
  }

  consume(key: string, cost = 1): Result<M, Decision> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(OWNER, this.mode, key, cost, now);
    return this.#binding.consume(key, now, cost);
  }

  peek(key: string, cost = 1): Result<M, Decision> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(OWNER, this.mode, key, cost, now);
    return this.#binding.peek(key, now, cost);
  }

  allow(key: string, cost = 1): Result<M, boolean> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(OWNER, this.mode, key, cost, now);
    return this.#binding.allow(key, now, cost);
  }

  reset(key: string): Result<M, void> {
    if (typeof key !== 'string') return refuseCall(OWNER, this.mode, key, 1, 0);
    return this.#binding.reset(key);
  }

  /** refundable: the wrapped limiter can refund. */
  get refundable(): boolean {
    return this.#inner.refundable;
  }

  /** refund gives `cost` back to the wrapped limiter, and may lift the key's ban (see above). */
  refund(key: string, cost = 1): Result<M, void> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(OWNER, this.mode, key, cost, now);
    if (!this.#inner.refundable || this.#binding.refund === undefined) return this.#inner.refund(key, cost); // throws: cannot refund
    return this.#binding.refund(key, now, cost);
  }

  /** chargeable: the wrapped limiter can charge and read usage, and the store's ban binding passes them on. */
  get chargeable(): boolean {
    return this.#inner.chargeable && typeof this.#binding.charge === 'function' && typeof this.#binding.usage === 'function';
  }

  /** blockable: the store's ban binding can set a ban directly (StoreBinding.block), so block() works. */
  get blockable(): boolean {
    return typeof this.#binding.block === 'function';
  }

  /** charge adds `cost` units to the wrapped limiter's state for `key`, ban or not; it starts no ban. */
  charge(key: string, cost = 1): Result<M, Usage> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(OWNER, this.mode, key, cost, now);
    if (!this.chargeable) throw new TypeError(`${OWNER}: its limiter or store cannot charge`);
    return (this.#binding.charge as NonNullable<StoreBinding<M>['charge']>).call(this.#binding, key, now, cost);
  }

  /** usage reads the wrapped limiter's Usage of `key`, with the time left in its ban as `blockedMs`. */
  usage(key: string): Result<M, Usage> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !Number.isFinite(now)) return refuseCall(OWNER, this.mode, key, 1, now);
    if (!this.chargeable) throw new TypeError(`${OWNER}: its limiter or store cannot read usage`);
    return (this.#binding.usage as NonNullable<StoreBinding<M>['usage']>).call(this.#binding, key, now);
  }

  /** block bans `key` for `ms` milliseconds from now, on the store (see the contract above). */
  block(key: string, ms: number): Result<M, void> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !Number.isFinite(now)) return refuseCall(OWNER, this.mode, key, 1, now);
    if (!Number.isSafeInteger(ms) || ms <= 0) {
      const error = new (typeof ms === 'number' ? RangeError : TypeError)(`${OWNER}: block's ms must be a positive integer, got ${describeValue(ms)}`);
      if (this.mode === 'sync') throw error;
      return Promise.reject(error) as Result<M, void>;
    }
    if (!this.blockable) throw new TypeError(`${OWNER}: its store's bans cannot be set directly (StoreBinding.block)`);
    return (this.#binding.block as NonNullable<StoreBinding<M>['block']>).call(this.#binding, key, now, ms);
  }
}

/** storeName names a store for a refusal: its class, when it has one of its own. */
function storeName(store: object): string {
  const name = (store as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'a store without banned';
}
