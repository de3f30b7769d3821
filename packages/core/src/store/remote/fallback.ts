/**
 * The fallback's share of a limit. During an outage every process decides alone, so N processes with
 * the full policy admit N times the limit. Dividing by N (each process gets capacity ⌊C/N⌋ refilled at
 * R/N, or ⌊L/N⌋ per window or in flight, never less than 1) holds the sum near the limit: at most
 * max(L, N) per window for the fleet, on top of what the server had admitted before it stopped.
 *
 * N is the `fallbackDivisor` option when given, else the number of processes last seen sharing the
 * store (./peers.ts). `fallbackPolicy` is pure (divisor 1 is the policy itself); a Fallback binds the
 * policy's share on the fallback store and binds it again when N has changed since (the fallback
 * decides only while the server cannot, and N changes only while it can, so what it forgets is state from
 * an earlier outage).
 *
 * Bans: the server's bans are out of reach while it cannot decide, so a limiter with bans decides on
 * `bannedFor(banMs)`, the share with the fallback store's own ban in front: the fallback bans the keys
 * its own denials ban, in this process, for the rest of the outage (a fallback store without bans
 * decides without them).
 */
import type { Algorithm } from '../../algorithm.js';
import { slidingLog } from '../../algorithms/sliding-log.js';
import type { Policy } from '../../policy.js';
import type { Store, StoreBinding } from '../contract.js';

export class Fallback {
  readonly #store: Store<'sync'>;
  readonly #algorithm: Algorithm<Policy>;
  readonly #policy: Policy;
  readonly #divisor: () => number;
  #boundFor = 0;
  #binding: StoreBinding<'sync'> | undefined;
  /** The ban bindings per ban length, each over the share it was made on. */
  readonly #bans = new Map<number, { readonly of: StoreBinding<'sync'>; readonly binding: StoreBinding<'sync'> }>();

  constructor(store: Store<'sync'>, algorithm: Algorithm<Policy>, policy: Policy, divisor: () => number) {
    this.#store = store;
    this.#algorithm = algorithm;
    this.#policy = policy;
    this.#divisor = divisor;
  }

  /** binding is the fallback binding of the current share. */
  get binding(): StoreBinding<'sync'> {
    const divisor = this.#divisor();
    if (this.#binding === undefined || divisor !== this.#boundFor) {
      this.#boundFor = divisor;
      const share = fallbackPolicy(this.#policy, divisor);
      // A sliding log's step is made for its limit (its ring's length): the share needs its own.
      const algorithm = share.algorithm === 'sliding-log' && share !== this.#policy ? (slidingLog(share.limit) as Algorithm<Policy>) : this.#algorithm;
      this.#binding = this.#store.bind(algorithm, share);
    }
    return this.#binding;
  }

  /** bannedFor is the binding of the current share with a ban of `banMs` in front, on the fallback store (see above). */
  bannedFor(banMs: number): StoreBinding<'sync'> {
    const binding = this.binding;
    let bans = this.#bans.get(banMs);
    if (bans?.of !== binding) {
      bans = { of: binding, binding: this.#store.banned?.(binding, banMs) ?? binding };
      this.#bans.set(banMs, bans);
    }
    return bans.binding;
  }
}

export function fallbackPolicy<P extends Policy>(policy: P, divisor: number): P {
  if (divisor === 1) return policy;
  const share = Math.max(1, Math.floor(policy.limit / divisor));
  if (policy.algorithm !== 'token-bucket') return Object.freeze({ ...(policy as Policy), limit: share }) as P;
  const refillPerSecond = policy.refillPerSecond / divisor;
  const intervalMs = 1000 / refillPerSecond;
  const burstMs = share * intervalMs;
  return Object.freeze({ ...(policy as Policy), capacity: share, refillPerSecond, intervalMs, burstMs, limit: share, windowMs: burstMs }) as P;
}
