/**
 * Names on a shared store. Every state a store keeps is found by the policy's name (a RedisStore's
 * keys, a SQL table's rows; a MemoryStore's table too, see MemoryStore.bind), so two limiters in one
 * process that bind the same name to the same store share one budget, on every store alike. That is
 * right when both were given that `name` on purpose with the same settings (two routes sharing one
 * quota, a limiter built again after a reload), and a defect in the other cases:
 *
 * - a name derived from the settings (`fw-3-60000`) bound a second time: two routes that each say
 *   `rateLimit({ algorithm: 'fixed-window', limit: 3, store })` would share three requests, silently.
 *   A per-limiter suffix cannot be the cure: every process must derive the same name for its limit
 *   to be shared on a remote store;
 * - one name bound with different settings: the store would decide one state by two policies.
 *
 * Every core limiter on a store it was given records its name here (Limiter's constructor); the
 * adapters' shorthand (http/options/shorthand.ts) then refuses a limiter whose name clashes, at construction,
 * with a TypeError naming the `name` option. Names are remembered per store object (a WeakMap), each
 * only while a limiter holding it is alive; a limiter's own default MemoryStore is never shared.
 */
import { type Policy, samePolicy } from '../policy.js';

interface Claim {
  readonly policy: Policy;
  /** Whether every limiter holding the name was given it (`name` option) rather than derived it. */
  readonly given: boolean;
  /** How many live limiters hold the name. */
  live: number;
}

/**
 * Names is one store's claims. A name is held only while a limiter holding it is alive (a
 * FinalizationRegistry counts them down), so a process that builds limiters per tenant or per request
 * keeps no name it no longer uses, and a limiter built again after the first was dropped is no clash.
 */
class Names {
  readonly claims = new Map<string, Claim>();
  readonly #registry = new FinalizationRegistry<string>((name) => {
    const claim = this.claims.get(name);
    if (claim !== undefined && --claim.live === 0) this.claims.delete(name);
  });

  hold(holder: object, name: string): void {
    this.#registry.register(holder, name);
  }
}

const stores = new WeakMap<object, Names>();

const clashes = new WeakMap<object, string>();

/**
 * claimName records that `holder` (a limiter) binds `policy` to `store`; when that shares a budget by
 * accident (see above) it remembers why, for clashOf. It never throws: a limiter built directly keeps
 * the store's rule (one name, one budget: shared on purpose, as on Redis); the adapters' shorthand,
 * which derives names on its user's behalf, refuses (chooseLimiter). `given`: from the `name` option.
 */
export function claimName(store: object, policy: Policy, given: boolean, holder: object): void {
  let names = stores.get(store);
  if (names === undefined) stores.set(store, (names = new Names()));
  const earlier = names.claims.get(policy.name);
  const share = 'Two limiters bound to one store under one name share one budget (on a RedisStore or any shared store, across routes and processes)';
  if (earlier !== undefined && !samePolicy(earlier.policy, policy)) {
    clashes.set(
      holder,
      `another limiter on this store already uses the name "${policy.name}" with other settings. ${share}, so one name must mean one policy: give this limiter a name of its own (name: '…').`,
    );
  } else if (earlier !== undefined && (!given || !earlier.given)) {
    clashes.set(
      holder,
      `another limiter on this store has the same settings and the same derived name "${policy.name}". ${share}, which is rarely meant: give each limiter its own name (name: 'login', name: 'api'), or give both the same name to share one budget on purpose (or use one limiter in both places).`,
    );
  }
  if (earlier === undefined) names.claims.set(policy.name, { policy, given, live: 1 });
  else {
    earlier.live++;
    if (!given) (earlier as { given: boolean }).given = false;
  }
  names.hold(holder, policy.name);
}

/** clashOf is why `limiter`'s name shares a budget by accident with another live limiter's, or undefined. */
export function clashOf(limiter: object): string | undefined {
  return clashes.get(limiter);
}

/** claimedNames is how many names `store` holds now (for tests). */
export function claimedNames(store: object): number {
  return stores.get(store)?.claims.size ?? 0;
}
