/**
 * Bans: "5 failed logins per 15 minutes, then the key is blocked for an hour".
 *
 *   const login = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 5, windowMs: 900_000 }), banMs: 3_600_000 });
 *
 * A ban is state beside the algorithm's, not a step of it, so it is a capability of the Store contract
 * (store.ts), which a store implements next to `bind`: `store.banned(binding, banMs)` returns a binding
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
 */
import type { Clock } from '../clock.js';
import type { Decision } from '../decision.js';
import { Limiter, type RateLimiter } from './limiter.js';
import type { Policy } from '../policy.js';
import type { Mode, Result, Store, StoreBinding } from '../store.js';
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
}

/** storeName names a store for a refusal: its class, when it has one of its own. */
function storeName(store: object): string {
  const name = (store as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'a store without banned';
}
