/**
 * Engine: what a RateLimiterObject does with a batch, with no Workers API in sight. It runs core's
 * algorithms on core's MemoryStore, so every decision is the memory store's own (composites through
 * consumeAll, bookings through reserveAll, bans through `banned`, refunds through the algorithms'
 * refund steps): the object adds no arithmetic of its own.
 *
 * The object is one key, so the store holds one key (the empty string) per policy. A batch is run in
 * order in one synchronous call; nothing here awaits, which is what makes the batch atomic (object.ts).
 *
 * Persistence: every state a batch changed (an admission, a ban started, a refund, a reset, a booking
 * or its cancel) is queued as a write for the object to store, with the instant it expires (the real
 * clock's instant at which the state is empty again, after which it need not be kept). Denials change
 * nothing and write nothing. After a restart the saved states are restored when a batch first names
 * their policy. Booking ledgers are not saved: a booking made before a restart still holds its
 * instant (its state is saved), but its cancel answers false, leaving its units spent.
 */
import { type Algorithm, type Booking, type Decision, MAX_LOG, MemoryStore, type Policy, fixedWindow, slidingWindow, tokenBucket } from '@ratekeeper/core';
import { CANCELLABLE_BOOKINGS, type MemoryBinding, slidingLog } from '@ratekeeper/core/store';
import type { Answer, Batch, Booked, Figures, Op } from './protocol.js';

/** ALGORITHMS are the steps an object runs, by name: core's own, nothing a batch could bring. */
const ALGORITHMS: Readonly<Record<string, Algorithm<Policy>>> = {
  'token-bucket': tokenBucket as Algorithm<Policy>,
  'sliding-window': slidingWindow as Algorithm<Policy>,
  'fixed-window': fixedWindow as Algorithm<Policy>,
};

/** stepOf is core's step for `policy` (a sliding log's is made for its limit); undefined for any other algorithm. */
function stepOf(policy: Policy): Algorithm<Policy> | undefined {
  if (policy.algorithm === 'sliding-log') return policy.limit >= 1 && policy.limit <= MAX_LOG ? (slidingLog(policy.limit) as Algorithm<Policy>) : undefined;
  return Object.hasOwn(ALGORITHMS, policy.algorithm) ? ALGORITHMS[policy.algorithm] : undefined;
}

/** The one key an object holds per policy: the object is the key. */
const KEY = '';

/** The bookings an object keeps cancellable: every member's ledger keeps CANCELLABLE_BOOKINGS anyway. */
const MAX_BOOKINGS = 4 * CANCELLABLE_BOOKINGS;

type Bans = ReturnType<MemoryStore['banned']>;

/** Entry is what the object stores per policy state (`s:`) or ban (`b:`); `expiresAt` is on the real clock. */
export interface Entry {
  readonly state?: readonly number[];
  readonly ban?: { readonly until: number; readonly cost: number };
  readonly expiresAt: number;
}

export class Engine {
  readonly #store = new MemoryStore();
  readonly #bindings = new Map<string, MemoryBinding>();
  readonly #steps = new Map<MemoryBinding, Algorithm<Policy>>();
  readonly #bans = new Map<string, Bans>();
  readonly #bookings = new Map<number, Booking<'sync'>>();
  #nextBooking = 1;
  /** What storage holds (after this object's writes), by storage key. */
  readonly #saved: Map<string, Entry>;
  /** The writes of the batch being run (undefined: delete), taken by the object after it. */
  #writes = new Map<string, Entry | undefined>();

  /** `saved` is what storage held at start; entries already expired at `clock` are dropped (and deleted). */
  constructor(saved: ReadonlyMap<string, Entry>, clock: number) {
    this.#saved = new Map();
    for (const [name, entry] of saved) {
      if (entry.expiresAt > clock) this.#saved.set(name, entry);
      else this.#writes.set(name, undefined);
    }
  }

  /** run decides `batch` at `clock` (the object's Date.now()), in order; one answer per op. */
  run(batch: Batch, clock: number): Answer[] {
    const sigs = batch.policies.map((p) => JSON.stringify(p));
    const answers: Answer[] = [];
    for (const op of batch.ops) answers.push(this.#one(op, batch.policies, sigs, op.now ?? clock, clock));
    return answers;
  }

  /** takeWrites hands over the writes queued since the last call. */
  takeWrites(): Map<string, Entry | undefined> {
    const writes = this.#writes;
    this.#writes = new Map();
    return writes;
  }

  /** latestExpiry is the real instant after which nothing saved is needed (0 when nothing is). */
  latestExpiry(): number {
    let latest = 0;
    for (const entry of this.#saved.values()) if (entry.expiresAt > latest) latest = entry.expiresAt;
    return latest;
  }

  /** forgetSaved records that storage was emptied (every saved entry had expired). */
  forgetSaved(): void {
    this.#saved.clear();
  }

  #one(op: Op, policies: readonly Policy[], sigs: readonly string[], now: number, clock: number): Answer {
    const members = op.members.map((i) => this.#binding(policies[i] as Policy, sigs[i] as string, now));
    const sig = (i: number) => sigs[op.members[i] as number] as string;
    const bans = op.banMs === undefined ? undefined : this.#banned(members[0] as MemoryBinding, sig(0), op.banMs);
    switch (op.op) {
      case 'decide': {
        const decisions = this.#decide(members, bans, now, op.cost, op.commit);
        if (op.commit && decisions.every((d) => d.allowed)) members.forEach((m, i) => this.#save(m, sig(i), now, clock));
        if (bans !== undefined && !decisions[0]?.allowed) this.#saveBan(bans, op.banMs as number, sig(0), now, clock);
        return figures(decisions);
      }
      case 'reset':
        if (bans !== undefined) bans.reset(KEY);
        else for (const m of members) m.reset(KEY);
        members.forEach((m, i) => this.#save(m, sig(i), now, clock));
        if (bans !== undefined) this.#saveBan(bans, op.banMs as number, sig(0), now, clock);
        return null;
      case 'refund':
        (bans ?? (members[0] as MemoryBinding)).refund(KEY, now, op.cost);
        this.#save(members[0] as MemoryBinding, sig(0), now, clock);
        if (bans !== undefined) this.#saveBan(bans, op.banMs as number, sig(0), now, clock);
        return null;
      case 'reserve':
        return this.#reserve(members, now, op.cost, op.maxWaitMs, (m, i) => this.#save(m, sig(i), now, clock));
      case 'cancel': {
        const done = this.#bookings.get(op.booking)?.cancel(now) === true;
        if (done) members.forEach((m, i) => this.#save(m, sig(i), now, clock));
        return done;
      }
    }
  }

  #decide(members: readonly MemoryBinding[], bans: Bans | undefined, now: number, cost: number, commit: boolean): readonly Decision[] {
    if (bans !== undefined) return [commit ? bans.consume(KEY, now, cost) : bans.peek(KEY, now, cost)];
    if (members.length > 1) return this.#store.consumeAll(members, KEY, now, cost, commit);
    const m = members[0] as MemoryBinding;
    return [commit ? m.consume(KEY, now, cost) : m.peek(KEY, now, cost)];
  }

  #reserve(members: readonly MemoryBinding[], now: number, cost: number, maxWaitMs: number, save: (m: MemoryBinding, i: number) => void): Booked {
    const booking = this.#store.reserveAll(members, KEY, now, cost, maxWaitMs);
    if (booking.ok) members.forEach(save);
    let id = 0;
    if (booking.ok && booking.delayMs > 0) {
      id = this.#nextBooking++;
      this.#bookings.set(id, booking);
      // The oldest go first: each member's ledger has stopped keeping them cancellable long before.
      if (this.#bookings.size > MAX_BOOKINGS) this.#bookings.delete(this.#bookings.keys().next().value as number);
    }
    return { ok: booking.ok, delayMs: booking.delayMs, figures: figures(booking.decisions), booking: id };
  }

  /** binding finds (or makes, restoring what storage held) the binding of `policy`, whose signature is `sig`. */
  #binding(policy: Policy, sig: string, now: number): MemoryBinding {
    let binding = this.#bindings.get(sig);
    if (binding !== undefined) return binding;
    const algorithm = stepOf(policy);
    if (algorithm === undefined) throw new TypeError(`RateLimiterObject: no step for algorithm ${JSON.stringify(policy.algorithm)}`);
    binding = this.#store.bind(algorithm, policy);
    this.#steps.set(binding, algorithm);
    const saved = this.#saved.get(`s:${sig}`)?.state;
    if (saved !== undefined) binding.restore(KEY, saved, now);
    this.#bindings.set(sig, binding);
    return binding;
  }

  #banned(inner: MemoryBinding, sig: string, banMs: number): Bans {
    const name = `b:${banMs}:${sig}`;
    let bans = this.#bans.get(name);
    if (bans !== undefined) return bans;
    bans = this.#store.banned(inner, banMs);
    const saved = this.#saved.get(name)?.ban;
    if (saved !== undefined) bans.restoreBan(KEY, saved);
    this.#bans.set(name, bans);
    return bans;
  }

  /** save queues the write of `binding`'s state (a delete when it holds none). */
  #save(binding: MemoryBinding, sig: string, now: number, clock: number): void {
    const state = binding.snapshot(KEY);
    const name = `s:${sig}`;
    if (state === undefined) return this.#put(name, undefined);
    const emptyAt = (this.#steps.get(binding) as Algorithm<Policy>).emptyAt(binding.policy, state, 0);
    this.#put(name, { state, expiresAt: clock + Math.max(0, emptyAt - now) });
  }

  #saveBan(bans: Bans, banMs: number, sig: string, now: number, clock: number): void {
    const name = `b:${banMs}:${sig}`;
    const ban = bans.banOf(KEY);
    if (ban?.until === this.#saved.get(name)?.ban?.until) return; // unchanged: no write
    this.#put(name, ban === undefined ? undefined : { ban: { until: ban.until, cost: ban.cost }, expiresAt: clock + Math.max(0, ban.until - now) });
  }

  #put(name: string, entry: Entry | undefined): void {
    if (entry === undefined && !this.#saved.has(name)) return; // nothing stored: nothing to delete
    if (entry === undefined) this.#saved.delete(name);
    else this.#saved.set(name, entry);
    this.#writes.set(name, entry);
  }
}

/** figures flattens decisions into four numbers each (protocol.ts). */
function figures(decisions: readonly Decision[]): Figures {
  const out: number[] = [];
  for (const d of decisions) out.push(d.allowed ? 1 : 0, d.remaining, d.retryAfterMs, d.resetAfterMs);
  return out;
}
