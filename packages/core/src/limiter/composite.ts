/**
 * CompositeLimiter enforces several limits at once (say 10 per second and 100 per minute), all or
 * nothing: a request is admitted only if every member admits it, and a denial by any member costs no
 * member anything. Its Decision is the most restrictive one: the largest `retryAfterMs`, the smallest
 * `remaining`, the latest reset, with every member's decision in `parts` (for one header item each).
 *
 * The members' store decides them in one all-or-nothing call (`Store.consumeAll`, and `allowAll` where
 * the store has it): members must all share that one store, or be on stores it `joins` (every memory
 * store joins every other: each binding keeps its own table). Answered at once by a synchronous store
 * (memory, SQLite), with a promise by a remote one. Nothing here asks which store class it was given. Nested composites
 * are flattened. All members must read the same clock, so that one `now` serves them all; it is read
 * once per call and refused, like a bad key or cost, when it is not a finite number (a throw on the
 * memory store, a rejected promise on a remote one: see limiter.ts).
 *
 * Members that hold leases (a ConcurrencyLimiter) take theirs in the same all-or-nothing step, so a
 * request a rate member denies takes no lease and one denied a lease spends no rate. Such a composite
 * has `release`, which returns the lease members' units only (a request's end gives back its lease,
 * never its rate), and its `refund` gives back to the rate members only (a lease is returned by
 * release, never twice). A composite without lease members has no `release`.
 */
import type { Clock } from '../clock.js';
import type { Decision } from '../decision.js';
import { type Bookable, Limiter, type RateLimiter } from './limiter.js';
import type { Policy } from '../policy.js';
import type { Mode, Result, Store, StoreBinding } from '../store/contract.js';
import { describeValue, isCost, refuseCall } from '../validate.js';

type Member<M extends Mode> = Limiter<Policy, M>;
const OWNER = 'CompositeLimiter';

export class CompositeLimiter<M extends Mode = 'sync'> implements RateLimiter<M> {
  readonly mode: M;
  readonly policies: readonly Policy[];
  readonly members: readonly Limiter<Policy, M>[];
  readonly #clock: Clock;
  readonly #bindings: readonly StoreBinding<M>[];
  readonly #store: Store<M>;
  /** The members that hold leases (have release) and the rate members. */
  readonly #leases: readonly Member<M>[];
  readonly #rates: readonly Member<M>[];
  /** release, only when some member holds leases (see above). */
  readonly release?: (key: string, cost?: number) => Result<M, void>;
  readonly bookable: Bookable<M>;

  constructor(limiters: readonly RateLimiter<M>[]) {
    // It takes no options: a second argument ({ name }, { store }) would be silently ignored.
    if (arguments.length > 1 && arguments[1] !== undefined)
      throw new TypeError(`${OWNER}: takes only the array of limiters (each brings its own options), got a second argument: ${describeValue(arguments[1])}`);
    const members = flatten(limiters);
    const first = members[0] as Member<M>;
    this.members = Object.freeze(members);
    this.mode = first.mode;
    this.#clock = first.clock;
    this.#store = first.store;
    this.#bindings = members.map((m) => m.binding);
    this.policies = Object.freeze(members.map((m) => m.policy));
    this.bookable = Object.freeze({ store: this.#store, bindings: Object.freeze([...this.#bindings]), policies: this.policies, clock: this.#clock });
    this.#leases = members.filter(releases);
    this.#rates = members.filter((m) => !releases(m));
    if (this.#leases.length > 0) this.release = (key, cost = 1) => this.#each(this.#leases, key, cost, 'release');
    for (const [i, m] of members.entries()) {
      if (m.clock !== this.#clock) throw new TypeError(`${OWNER}: every member must share one clock; member ${i} has another`);
    }
    const store = this.#store;
    const together = members.every((m) => m.store === store || store.joins?.(m.store) === true) && typeof store.consumeAll === 'function';
    if (!together) throw new TypeError(`${OWNER}: members on a remote store must all share one store that supports consumeAll`);
    store.prepareAll?.(this.#bindings);
  }

  consume(key: string, cost = 1): Result<M, Decision> {
    return this.#decide(key, cost, true);
  }

  peek(key: string, cost = 1): Result<M, Decision> {
    return this.#decide(key, cost, false);
  }

  allow(key: string, cost = 1): Result<M, boolean> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(OWNER, this.mode, key, cost, now);
    if (this.#store.allowAll !== undefined) return this.#store.allowAll(this.#bindings, key, now, cost);
    const all = this.#store.consumeAll!(this.#bindings, key, now, cost, true);
    // A synchronous store (SQLite) answers at once; a remote one with a promise.
    if (this.mode === 'sync') return (all as readonly Decision[]).every((p) => p.allowed) as Result<M, boolean>;
    return (all as Promise<readonly Decision[]>).then((parts) => parts.every((p) => p.allowed)) as Result<M, boolean>;
  }

  reset(key: string): Result<M, void> {
    if (typeof key !== 'string') return refuseCall(OWNER, this.mode, key, 1, 0);
    const results = this.members.map((m) => m.reset(key));
    return (this.mode === 'sync' ? undefined : Promise.all(results).then(() => undefined)) as Result<M, void>;
  }

  /** refundable: every rate member can refund. */
  get refundable(): boolean {
    return this.#rates.every((m) => m.refundable);
  }

  /** refund gives `cost` back to every rate member (each capped at its own empty state); leases go back by release. */
  refund(key: string, cost = 1): Result<M, void> {
    return this.#each(this.#rates, key, cost, 'refund');
  }

  #each(members: readonly Member<M>[], key: string, cost: number, verb: 'refund' | 'release'): Result<M, void> {
    if (typeof key !== 'string' || !isCost(cost)) return refuseCall(OWNER, this.mode, key, cost, 0);
    const results = members.map((m) => (verb === 'refund' ? m.refund(key, cost) : (m as Member<M> & Required<Pick<RateLimiter<M>, 'release'>>).release(key, cost)));
    return (this.mode === 'sync' ? undefined : Promise.all(results).then(() => undefined)) as Result<M, void>;
  }

  #decide(key: string, cost: number, commit: boolean): Result<M, Decision> {
    const now = this.#clock.now();
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) return refuseCall(OWNER, this.mode, key, cost, now);
    const all = this.#store.consumeAll!(this.#bindings, key, now, cost, commit);
    if (this.mode === 'sync') return mostRestrictive(all as readonly Decision[]) as Result<M, Decision>;
    return (all as Promise<readonly Decision[]>).then(mostRestrictive) as Result<M, Decision>;
  }
}

/**
 * mostRestrictive merges member decisions: allowed only if all are; the member that makes the caller
 * wait longest (then: with the fewest units left) lends its limit and policy; `remaining` is the
 * smallest and `resetAfterMs` the largest over all members.
 */
export function mostRestrictive(parts: readonly Decision[]): Decision {
  let primary = parts[0] as Decision;
  let remaining = primary.remaining;
  let resetAfterMs = primary.resetAfterMs;
  let allowed = primary.allowed;
  for (let i = 1; i < parts.length; i++) {
    const d = parts[i] as Decision;
    if (d.retryAfterMs > primary.retryAfterMs || (d.retryAfterMs === primary.retryAfterMs && d.remaining < primary.remaining)) primary = d;
    if (d.remaining < remaining) remaining = d.remaining;
    if (d.resetAfterMs > resetAfterMs) resetAfterMs = d.resetAfterMs;
    allowed &&= d.allowed;
  }
  const failure = parts.find((p) => p.failure !== undefined)?.failure;
  const merged = { allowed, limit: primary.limit, remaining, retryAfterMs: primary.retryAfterMs, resetAfterMs, policy: primary.policy, parts };
  return failure === undefined ? merged : { ...merged, failure };
}

function releases<M extends Mode>(member: Member<M>): boolean {
  return typeof (member as RateLimiter<M>).release === 'function';
}

function flatten<M extends Mode>(limiters: readonly RateLimiter<M>[]): Member<M>[] {
  if (!Array.isArray(limiters) || limiters.length === 0) {
    throw new TypeError(`${OWNER}: limiters must be a non-empty array of limiters, got ${describeValue(limiters)}`);
  }
  const members: Member<M>[] = [];
  for (const [i, limiter] of limiters.entries()) {
    if (limiter instanceof CompositeLimiter) members.push(...(limiter.members as Member<M>[]));
    else if (limiter instanceof Limiter) members.push(limiter as Member<M>);
    else throw new TypeError(`${OWNER}: limiters[${i}] must be a ratekeeper limiter, got ${describeValue(limiter)}`);
  }
  if (new Set(members).size !== members.length) throw new TypeError(`${OWNER}: a limiter appears twice among the members`);
  return members;
}
