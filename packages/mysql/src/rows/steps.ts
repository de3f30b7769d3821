/**
 * Steps: what a batch's calls do to the states its transaction has locked, in JavaScript, with core's
 * own pure steps (the algorithm's `evaluate` and `refund`: the very code the memory store runs), in
 * the order the calls arrived. Nothing of an algorithm is ported to SQL, so nothing can drift from
 * the specification: given the same instant, a call's decision is the memory store's, bit for bit.
 *
 * A call is a consume, peek, refund or reset of one key under one binding, or a composite's consume or
 * peek under several, all or nothing (core's decideAll): every member evaluates, and only when all
 * admit does any of them record; a member that admitted inside a denied composite reports what it
 * holds as it stands. A reserve books a request at a future instant and a cancel takes a booking back,
 * on one binding or a composite's members, with each member's booking ledger (./ledger.ts), as core's
 * memory store books (memory-reserve.ts). `states` holds each row's state as the calls before left it,
 * and the rows a call changed are marked dirty, for the write-back.
 */
import { type Algorithm, type Decision, type Policy } from '@ratekeeper/core';
import { type LeaseWork, type StepOutput, bannedDecision, leaseView, releaseLeases, renewLeases, stepOutput, takeLeases, toDecision } from '@ratekeeper/core/store';
import { type Entry, type Ledger, decodeLedger, encodeLedger, latest, record, without } from './ledger.js';

/** Member is what a call needs of a binding: its policy, its algorithm, and the row of its booking ledgers. */
export interface Member {
  readonly policy: Policy;
  readonly algorithm: Algorithm<Policy>;
  /** The member of the binding's booking ledgers (`<policy name>#book`: ./ledger.ts); none for a ban's or a ledger's own row, nor for leases. */
  readonly bookings?: Member;
  /** True for a concurrency limit's leases (../bindings/leases.ts): the row holds leases (core's lease rows), decided on the number still live. */
  readonly leases?: true;
}

export type Kind = 'consume' | 'peek' | 'refund' | 'reset' | 'reserve' | 'cancel' | 'renew';

/**
 * Booking is a reserve call's own part: the longest wait it takes (-1: no bound) and its entry's id;
 * the attempt that runs it fills in the answer (a batch run again overwrites it: the committed run's stands).
 */
export interface Booking {
  readonly maxWaitMs: number;
  readonly id: number;
  ok: boolean;
  /** From the instant decided at to the booked one: 0 at once, Infinity when the cost never fits. */
  delayMs: number;
  /** The booked instant, on the table's clock (the cancel's `at`). */
  at: number;
  /** Whether the booking is in the ledgers (not when it goes at once: nothing is left to cancel). */
  cancellable: boolean;
}

/** Cancel is a cancel call's own part: which booking, and whether the attempt that ran it gave it back. */
export interface Cancel {
  readonly id: number;
  readonly at: number;
  done: boolean;
}

/** Ban puts a ban in front of a call's one member (../bindings/bans.ts): its row's member and how long a ban lasts. */
export interface Ban {
  readonly member: Member;
  readonly banMs: number;
}

/** Call is one limiter call inside a batch. */
export interface Call {
  readonly kind: Kind;
  readonly members: readonly Member[];
  /** The stored key (./codec.ts). */
  readonly key: Buffer;
  /** The limiter's clock (used when the store decides at the client's time). */
  readonly now: number;
  readonly cost: number;
  /** A ban in front of the call's one member (core's Bans contract), if any. */
  readonly ban?: Ban;
  /** A reserve call's booking. */
  readonly booking?: Booking;
  /** A cancel call's booking. */
  readonly cancel?: Cancel;
  /** The lease work of each member that holds leases (by position in `members`): what to take, give back or renew. */
  readonly leases?: readonly (LeaseWork | undefined)[];
  /** deliver receives the call's decisions (none for refund and reset), or the Failure that kept the batch from deciding. */
  deliver(decisions: readonly Decision[] | undefined, failure?: unknown): void;
}

/** rowId names a (policy, key) row in a batch. */
export function rowId(policy: Policy, key: Buffer): string {
  return `${policy.name}\u0000${key.toString('latin1')}`;
}

export class Steps {
  readonly states = new Map<string, Float64Array | undefined>();
  readonly dirty = new Set<string>();
  readonly #outs = new Map<Algorithm<Policy>, StepOutput[]>();

  /** run decides `call` at `at` on the states, answering its decisions. */
  run(call: Call, at: number): readonly Decision[] {
    return call.ban === undefined ? this.#run(call, at) : this.#banned(call, call.ban, at);
  }

  /**
   * banned decides a call with a ban in front (core's ban.ts, as the memory store's MemoryBans): a
   * banned key is denied with the time left, changing nothing; outside a ban the first denial that
   * waiting could cure starts a ban of banMs (not for a peek); a refund lifts a ban once the algorithm
   * admits the cost that started it; a reset lifts it.
   */
  #banned(call: Call, ban: Ban, at: number): readonly Decision[] {
    const m = call.members[0] as Member;
    const id = rowId(ban.member.policy, call.key);
    const held = this.states.get(id);
    const left = held !== undefined && at < (held[0] as number) ? (held[0] as number) - at : 0;
    // An ended ban is dropped when seen, as the memory store drops it: a clock that then steps back finds none.
    if (held !== undefined && left === 0) this.#set(id, undefined);
    if (call.kind === 'reset') {
      this.#set(id, undefined);
      return this.#run(call, at);
    }
    if (call.kind === 'refund') {
      this.#run(call, at);
      if (left > 0 && (this.#run({ ...call, kind: 'peek', cost: (held as Float64Array)[1] as number }, at)[0] as Decision).allowed) this.#set(id, undefined);
      return [];
    }
    if (left > 0) return [bannedDecision(m.policy, left)];
    const decision = this.#run(call, at)[0] as Decision;
    if (decision.allowed || decision.retryAfterMs === Infinity) return [decision];
    if (call.kind === 'consume') this.#set(id, Float64Array.of(at + ban.banMs, call.cost));
    return [bannedDecision(m.policy, ban.banMs)];
  }

  #run(call: Call, at: number): readonly Decision[] {
    if (call.kind === 'reset') {
      for (const m of call.members) {
        this.#set(rowId(m.policy, call.key), undefined);
        // A reset key is empty: nothing booked on it is waited behind (as on the memory store).
        const ledger = m.bookings === undefined ? undefined : rowId(m.bookings.policy, call.key);
        if (ledger !== undefined && this.states.get(ledger) !== undefined) this.#set(ledger, undefined);
      }
      return [];
    }
    if (call.kind === 'reserve') return this.#reserve(call, call.booking as Booking, at);
    if (call.kind === 'cancel') {
      (call.cancel as Cancel).done = this.#cancel(call, call.cancel as Cancel, at);
      return [];
    }
    const work = call.leases?.[0];
    if (call.kind === 'renew' || (call.kind === 'refund' && work !== undefined)) {
      const id = rowId((call.members[0] as Member).policy, call.key);
      const next = call.kind === 'renew' ? renewLeases(this.states.get(id), work as LeaseWork, at) : releaseLeases(this.states.get(id), work as LeaseWork, at);
      if (next !== undefined) this.#set(id, next.state);
      return [];
    }
    if (call.kind === 'refund') {
      const m = call.members[0] as Member;
      const id = rowId(m.policy, call.key);
      const state = this.states.get(id);
      const out = this.#out(m.algorithm, 0);
      if (state !== undefined && m.algorithm.refund?.(m.policy, state, 0, at, call.cost, out) === true) this.#set(id, Float64Array.from(out.next));
      return [];
    }
    const commit = call.kind === 'consume';
    const members = call.members;
    const outs: StepOutput[] = [];
    let allowed = true;
    for (let i = 0; i < members.length; i++) {
      const m = members[i] as Member;
      const out = this.#out(m.algorithm, i);
      m.algorithm.evaluate(m.policy, this.#view(m, call.key, at), 0, at, call.cost, out);
      outs.push(out);
      if (!out.allowed) allowed = false;
    }
    const decisions = outs.map((out, i) => toDecision(out, (members[i] as Member).policy));
    if (allowed) {
      if (commit) members.forEach((m, i) => this.#record(m, call, at, outs[i] as StepOutput, call.leases?.[i]));
      return decisions;
    }
    return decisions.map((d, i) => (d.allowed ? this.#held(members[i] as Member, call.key, at) : d));
  }

  /**
   * reserve books the call at the first instant, at or after `at`, at which every member admits it and
   * no earlier than the latest booking on any of them (core's Store.reserveAll), all or nothing; it
   * refuses, recording nothing, what never fits or would wait more than maxWaitMs. Every core algorithm
   * that admits a cost at an instant admits it at every later one when nothing else is recorded, so the
   * members all admit at max(at + the longest wait, the latest booking), where each records its step.
   */
  #reserve(call: Call, booking: Booking, at: number): readonly Decision[] {
    const members = call.members;
    booking.ok = false;
    booking.cancellable = false;
    let ahead = Number.NEGATIVE_INFINITY;
    let wait = 0;
    const seen: Decision[] = [];
    const ledgers: (Ledger | undefined)[] = [];
    for (const [i, m] of members.entries()) {
      const ledger = decodeLedger(this.states.get(rowId((m.bookings as Member).policy, call.key)));
      ledgers.push(ledger);
      const last = ledger === undefined ? Number.NEGATIVE_INFINITY : latest(ledger);
      if (last > at && last > ahead) ahead = last;
      const out = this.#out(m.algorithm, i);
      m.algorithm.evaluate(m.policy, this.states.get(rowId(m.policy, call.key)), 0, at, call.cost, out);
      const d = toDecision(out, m.policy);
      if (d.retryAfterMs > wait) wait = d.retryAfterMs;
      seen.push(d);
    }
    booking.delayMs = wait;
    if (wait === Infinity) return seen;
    const when = Math.max(at + wait, ahead);
    booking.delayMs = when - at;
    if (booking.maxWaitMs >= 0 && when - at > booking.maxWaitMs) return seen;
    const before = members.map((m) => this.#copy(rowId(m.policy, call.key)));
    const decisions = this.#run({ ...call, kind: 'consume' }, when);
    if (!decisions.every((d) => d.allowed)) return decisions; // unreachable while retryAfterMs is exact
    booking.ok = true;
    booking.at = when;
    // A booking that goes at once is not in the ledgers: its instant has come, nothing is left to cancel.
    if (!(when > at)) return decisions;
    booking.cancellable = true;
    const entry: Entry = { at: when, cost: call.cost, id: booking.id };
    for (const [i, m] of members.entries()) {
      const after = this.#copy(rowId(m.policy, call.key)) as number[];
      const ledger = record(m, ledgers[i], before[i], after, entry, at);
      this.#set(rowId((m.bookings as Member).policy, call.key), encodeLedger(ledger));
    }
    return decisions;
  }

  /** cancel gives a booking back on every member or on none, before its instant only; it answers whether it did. */
  #cancel(call: Call, cancel: Cancel, at: number): boolean {
    if (!(at < cancel.at)) return false;
    const undone = call.members.map((m) =>
      without(m, decodeLedger(this.states.get(rowId((m.bookings as Member).policy, call.key))), cancel.id, cancel.at, this.states.get(rowId(m.policy, call.key))),
    );
    if (undone.some((u) => u === null)) return false;
    for (const [i, m] of call.members.entries()) {
      const { ledger, state } = undone[i] as NonNullable<(typeof undone)[number]>;
      this.#set(rowId(m.policy, call.key), state === undefined ? undefined : Float64Array.from(state));
      this.#set(rowId((m.bookings as Member).policy, call.key), encodeLedger(ledger));
    }
    return true;
  }

  /** view is the state a member decides on: its row's, or for leases the number still live at `at`. */
  #view(m: Member, key: Buffer, at: number): Float64Array | undefined {
    const state = this.states.get(rowId(m.policy, key));
    return m.leases === true ? leaseView(state, at) : state;
  }

  /** record writes an admitted member's step: its next state, or for leases `cost` new ones of its holder (the work's `taken`). */
  #record(m: Member, call: Call, at: number, out: StepOutput, work: LeaseWork | undefined): void {
    const id = rowId(m.policy, call.key);
    if (m.leases === true) this.#set(id, takeLeases(this.states.get(id), work as LeaseWork, at, call.cost).state);
    else this.#set(id, Float64Array.from(out.next));
  }

  #copy(id: string): number[] | undefined {
    const state = this.states.get(id);
    return state === undefined ? undefined : Array.from(state);
  }

  /** held is what a member holds as it stands (for a member that admitted inside a denied composite). */
  #held(m: Member, key: Buffer, at: number): Decision {
    const out = this.#out(m.algorithm, -1);
    m.algorithm.evaluate(m.policy, this.#view(m, key, at), 0, at, Number.MAX_SAFE_INTEGER, out);
    return { allowed: true, limit: m.policy.limit, remaining: out.remaining, retryAfterMs: 0, resetAfterMs: out.resetAfterMs, policy: m.policy };
  }

  #set(id: string, state: Float64Array | undefined): void {
    this.states.set(id, state);
    this.dirty.add(id);
  }

  /** out is a scratch output for `algorithm`, one per position in a composite (-1: the held figures'). */
  #out(algorithm: Algorithm<Policy>, slot: number): StepOutput {
    let outs = this.#outs.get(algorithm);
    if (outs === undefined) this.#outs.set(algorithm, (outs = []));
    const index = slot + 1;
    let out = outs[index];
    if (out === undefined) outs[index] = out = stepOutput(algorithm.stateSize);
    return out;
  }
}
