/**
 * MemoryBinding: one limiter's bounded table in a MemoryStore (memory-store.ts), with no timers and
 * no background work: a Map from key to a slot in one Float64Array that holds every key's few numbers
 * of state, so that after a key's first request deciding allocates nothing.
 *
 * Keys: a key of up to 64 UTF-16 code units is kept verbatim; a longer one is kept as a keyed 128-bit
 * digest of 65 characters (key-digest.ts), so memory per key is bounded in bytes whatever a client puts
 * in its key, and no key is long enough for V8 to hash it by length alone (which made every such key
 * collide in the Map). Short keys pay one length comparison.
 *
 * State that has returned to empty is never needed again (the algorithm decides an empty state and a
 * missing one alike), so it is dropped lazily: only when a table reaches `maxKeys`. Then one sweep drops
 * every empty key and, if that frees fewer than 1/32 of the table, also evicts the live keys with the
 * most room left first: the lowest fill (the fraction of the limit a key holds at the sweep, from its
 * algorithm), then the nearest empty instant, then the oldest. A key flood therefore never resets a
 * blocked key while keys with more room remain, for every algorithm: every key counted in one window
 * shares its empty instant, so ranking by that instant alone fell back to oldest-first and evicted the
 * blocked key before the flood's. Evicted live keys are counted in `evictions`. A sweep costs
 * O(maxKeys) (two linear-time selections) and runs at most once per maxKeys/32 new keys.
 *
 * A pinned algorithm (a concurrency limit: algorithm.ts) is never evicted while its key holds leases,
 * since dropping a lease admits beyond the limit: the sweep then only drops idle keys, and while the
 * table is full of keys holding leases a new key is denied (retryAfterMs: the policy's hint) rather
 * than admitted uncounted. So a flood of fresh keys can neither reset a key's leases nor grow the
 * table past maxKeys; keys holding leases are bounded by the requests in flight anyway.
 *
 * A dropped empty state is only equivalent to no state at instants after it became empty; a clock that
 * later stepped back behind the sweep would find a fresh key where the dropped state still counted.
 * So a binding reads any instant earlier than its latest sweep as that sweep's instant (time going
 * backwards counts as no time passing), and shifts the reported waits by the difference so they stay
 * honest for the caller's clock. On a clock that never goes back this changes nothing.
 */
import { type Algorithm, type StepOutput, type UsageOutput, stepOutput, toDecision, usageOutput } from '../algorithm.js';
import type { Decision } from '../decision.js';
import type { Policy } from '../policy.js';
import type { StoreBinding } from '../store/contract.js';
import { type Usage, toUsage } from '../usage.js';
import { evictionMask } from './eviction.js';
import { MAX_VERBATIM_KEY, digestKey, storedKey } from './key-digest.js';
import type { Ledger } from './memory-ledger.js';

const INITIAL_SLOTS = 1024;

/** MemoryBinding is one limiter's bounded table in a MemoryStore. */
export class MemoryBinding<P extends Policy = Policy> implements StoreBinding<'sync'> {
  readonly #algorithm: Algorithm<P>;
  readonly #policy: P;
  readonly #width: number;
  readonly #maxKeys: number;
  readonly #index = new Map<string, number>();
  readonly #free: number[] = [];
  readonly #out: StepOutput;
  readonly #usage: UsageOutput = usageOutput();
  #states: Float64Array;
  #nextSlot = 0;
  #evictions = 0;
  /** The slot the last `evaluate` found, or -1 for a key not held. */
  #slot = -1;
  /**
   * reserve's booking ledger per stored key (memory-reserve.ts, memory-ledger.ts); `reset` forgets the key's.
   * @internal
   */
  reservations: { readonly at: Map<string, Ledger>; sweepAt: number } | undefined = undefined;
  /** The instant of the latest sweep; earlier instants are read as this one. */
  #sweptAt = -Infinity;
  /** For a pinned algorithm: the state of a key holding the whole limit (a full table's answer); else undefined. */
  readonly #full: Float64Array | undefined;
  /** Pinned keys released to idle since the latest sweep: a full pinned table sweeps again only when some are. */
  #idle = 0;

  constructor(algorithm: Algorithm<P>, policy: P, maxKeys: number) {
    this.#algorithm = algorithm;
    this.#policy = policy;
    this.#width = algorithm.stateSize;
    this.#maxKeys = maxKeys;
    this.#out = stepOutput(algorithm.stateSize);
    this.#full = algorithm.pinned === true ? Float64Array.of(policy.limit) : undefined;
    // A wide state (a sliding log's ring) starts with fewer slots: the table starts at about 24 KB.
    this.#states = new Float64Array(Math.min(maxKeys, Math.ceil((INITIAL_SLOTS * 3) / this.#width), INITIAL_SLOTS) * this.#width);
  }

  /** policy is the policy this binding decides. */
  get policy(): P {
    return this.#policy;
  }

  /** size is the number of keys held, empty ones not yet dropped included. */
  get size(): number {
    return this.#index.size;
  }

  /** evictions counts live (non-empty) keys dropped to respect maxKeys. */
  get evictions(): number {
    return this.#evictions;
  }

  consume(key: string, now: number, cost: number): Decision {
    key = storedKey(key);
    if (this.evaluate(key, now, cost)) this.commit(key, now);
    return toDecision(this.#out, this.#policy);
  }

  peek(key: string, now: number, cost: number): Decision {
    this.evaluate(storedKey(key), now, cost);
    return toDecision(this.#out, this.#policy);
  }

  allow(key: string, now: number, cost: number): boolean {
    if (key.length > MAX_VERBATIM_KEY) key = digestKey(key);
    const slot = this.#index.get(key);
    if (slot !== undefined && now >= this.#sweptAt && this.#algorithm.admit !== undefined) {
      return this.#algorithm.admit(this.#policy, this.#states, slot * this.#width, now, cost);
    }
    if (!this.evaluate(key, now, cost)) return false;
    this.commit(key, now);
    return true;
  }

  reset(key: string): void {
    key = storedKey(key);
    const slot = this.#index.get(key);
    if (slot !== undefined) this.#drop(key, slot);
    this.reservations?.at.delete(key); // a reset key is empty: nothing booked on it is waited behind
  }

  /** refund gives back up to `cost` units to a held key (the algorithm's refund step); a key not held has nothing to give back. */
  refund(key: string, now: number, cost: number): void {
    const slot = this.#index.get(storedKey(key));
    const algorithm = this.#algorithm;
    if (slot === undefined || algorithm.refund === undefined) return;
    const offset = slot * this.#width;
    if (!algorithm.refund(this.#policy, this.#states, offset, now < this.#sweptAt ? this.#sweptAt : now, cost, this.#out)) return;
    const next = this.#out.next;
    for (let i = 0; i < next.length; i++) this.#states[offset + i] = next[i] as number;
    if (this.#full !== undefined && next[0] === 0) this.#idle++;
  }

  /**
   * charge adds `cost` units to `key` whatever the limit says (the algorithm's charge step) and reads
   * the key's usage after it; `usage` reads it alone. Both read an instant before the latest sweep as
   * that sweep's, as evaluate does.
   */
  charge(key: string, now: number, cost: number): Usage {
    key = storedKey(key);
    const algorithm = this.#algorithm;
    if (algorithm.charge === undefined) throw new TypeError(`MemoryStore: ${algorithm.name} cannot charge`);
    const at = now < this.#sweptAt ? this.#sweptAt : now;
    const held = this.#index.get(key);
    algorithm.charge(this.#policy, held === undefined ? undefined : this.#states, held === undefined ? 0 : held * this.#width, at, cost, this.#out);
    const slot = held ?? this.#insert(key, at);
    const next = this.#out.next;
    const offset = slot * this.#width;
    for (let i = 0; i < next.length; i++) this.#states[offset + i] = next[i] as number;
    return this.usage(key, now);
  }

  usage(key: string, now: number): Usage {
    const algorithm = this.#algorithm;
    if (algorithm.usage === undefined) throw new TypeError(`MemoryStore: ${algorithm.name} cannot read usage`);
    const slot = this.#index.get(storedKey(key));
    const at = now < this.#sweptAt ? this.#sweptAt : now;
    const out = this.#usage;
    algorithm.usage(this.#policy, slot === undefined ? undefined : this.#states, slot === undefined ? 0 : slot * this.#width, at, out);
    if (at !== now && out.resetAfterMs > 0) out.resetAfterMs += at - now;
    return toUsage(out, this.#policy);
  }

  /**
   * evaluate runs the step for `key` into this binding's scratch output; commit writes it. These and
   * `held` take the key as stored (`storedKey(key)`, computed once per call by the caller).
   */
  evaluate(key: string, now: number, cost: number): boolean {
    const slot = this.#index.get(key);
    const out = this.#out;
    const at = now < this.#sweptAt ? this.#sweptAt : now;
    if (slot === undefined) {
      this.#slot = -1;
      // A pinned table full of held keys has no room: answer as if the key held the whole limit.
      const full = this.#full !== undefined && this.#index.size >= this.#maxKeys && (this.#idle === 0 || this.#sweep(at)) ? this.#full : undefined;
      this.#algorithm.evaluate(this.#policy, full, 0, at, cost, out);
    } else {
      this.#slot = slot;
      this.#algorithm.evaluate(this.#policy, this.#states, slot * this.#width, at, cost, out);
    }
    if (at !== now) this.#shift(at - now);
    return out.allowed;
  }

  /** commit stores the next state of the last `evaluate`, which must have been for `key` and allowed. */
  commit(key: string, now: number): void {
    const slot = this.#slot >= 0 ? this.#slot : this.#insert(key, now < this.#sweptAt ? this.#sweptAt : now);
    const next = this.#out.next;
    const offset = slot * this.#width;
    for (let i = 0; i < next.length; i++) this.#states[offset + i] = next[i] as number;
  }

  /** decision materialises the last `evaluate`. */
  decision(): Decision {
    return toDecision(this.#out, this.#policy);
  }

  /**
   * held reports `key` as it stands, for a member that would admit inside a denied composite: the units
   * it still holds and the time until it is empty, read by evaluating a cost no policy can grant
   * (which writes nothing). Remote stores compute it the same way, so both report the same figures.
   */
  held(key: string, now: number): Decision {
    this.evaluate(key, now, Number.MAX_SAFE_INTEGER);
    const out = this.#out;
    return { allowed: true, limit: this.#policy.limit, remaining: out.remaining, retryAfterMs: 0, resetAfterMs: out.resetAfterMs, policy: this.#policy };
  }

  /** snapshot copies `key`'s state (the key as stored), or undefined when it is not held (reservations: memory-reserve.ts). */
  snapshot(key: string): number[] | undefined {
    const slot = this.#index.get(key);
    if (slot === undefined) return undefined;
    const offset = slot * this.#width;
    return Array.from(this.#states.subarray(offset, offset + this.#width));
  }

  /**
   * stepFrom runs the step on a state taken by `snapshot` (undefined: none held), changing nothing held:
   * the next state, or null when the step refuses. A booking ledger replays bookings with it
   * (memory-ledger.ts), at instants read as `evaluate` reads them.
   */
  stepFrom(state: readonly number[] | undefined, at: number, cost: number): number[] | null {
    const out = stepOutput(this.#width);
    this.#algorithm.evaluate(this.#policy, state, 0, at < this.#sweptAt ? this.#sweptAt : at, cost, out);
    return out.allowed ? Array.from(out.next) : null;
  }

  /** restore puts back a state taken by `snapshot` (undefined: the key is dropped); `key` as stored. */
  restore(key: string, state: readonly number[] | undefined, now: number): void {
    if (state === undefined) {
      const held = this.#index.get(key);
      if (held !== undefined) this.#drop(key, held);
      return;
    }
    const slot = this.#index.get(key) ?? this.#insert(key, now < this.#sweptAt ? this.#sweptAt : now);
    this.#states.set(state, slot * this.#width);
  }

  #insert(key: string, now: number): number {
    if (this.#index.size >= this.#maxKeys) this.#sweep(now);
    let slot = this.#free.pop();
    if (slot === undefined) {
      slot = this.#nextSlot++;
      if ((slot + 1) * this.#width > this.#states.length) this.#grow();
    }
    this.#index.set(key, slot);
    return slot;
  }

  #grow(): void {
    const slots = Math.min(this.#maxKeys, (this.#states.length / this.#width) * 2);
    const states = new Float64Array(slots * this.#width);
    states.set(this.#states);
    this.#states = states;
  }

  /** Reports figures measured from a held instant `by` ms later than the caller's clock. */
  #shift(by: number): void {
    const out = this.#out;
    if (out.retryAfterMs > 0) out.retryAfterMs += by;
    if (out.resetAfterMs > 0) out.resetAfterMs += by;
  }

  /**
   * #sweep drops every empty key, then, if that freed fewer than maxKeys/32 slots, evicts the live keys
   * with the most room to make up the difference (eviction.ts has the order). One pass records each
   * live key's fill and empty instant in table order; the eviction pass walks the table in the same
   * order, so nothing is computed twice. A pinned table evicts no live key (see above). Returns whether
   * the table is still full.
   */
  #sweep(now: number): boolean {
    this.#sweptAt = now;
    this.#idle = 0;
    const algorithm = this.#algorithm;
    const policy = this.#policy;
    const states = this.#states;
    const width = this.#width;
    const fills = new Float64Array(this.#index.size);
    const times = new Float64Array(this.#index.size);
    let live = 0;
    this.#index.forEach((slot, key) => {
      const at = algorithm.emptyAt(policy, states, slot * width);
      if (at <= now) return this.#drop(key, slot);
      fills[live] = algorithm.fill(policy, states, slot * width, now);
      times[live++] = at;
    });
    const wanted = Math.max(1, this.#maxKeys >> 5) - (times.length - live);
    if (wanted <= 0 || this.#full !== undefined) return this.#index.size >= this.#maxKeys;
    const evict = evictionMask(fills, times, live, wanted);
    let i = 0;
    this.#index.forEach((slot, key) => {
      if (evict[i++] === 1) {
        this.#drop(key, slot);
        this.#evictions++;
      }
    });
    return false;
  }

  #drop(key: string, slot: number): void {
    this.#index.delete(key);
    this.#free.push(slot);
  }
}
