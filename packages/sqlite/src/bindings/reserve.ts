/**
 * Reservations on a SqliteStore (core's reserve.ts contract: never early, first come first served per
 * key, a cancel before the instant leaving every member as if never booked while the bookings behind
 * it keep their instants). A booking, and a cancel, is one immediate transaction that runs the memory
 * store's own booking code: each member's state and ledger are loaded from the file into a scratch
 * MemoryBinding, core's MemoryStore.reserveAll (memory-reserve.ts, memory-ledger.ts) books on them,
 * and the states and ledgers it leaves are written back. Inside the transaction this process holds the
 * only copy of those rows anyone can change, so the result is exactly the memory store's, for every
 * process sharing the file; nothing of the ledger's replay logic is rewritten here.
 *
 * The scratch bindings hold one key at a time (a fixed scratch key, always stored verbatim) and are
 * emptied after each transaction. A ledger row keeps the key's latest booked instant for cleanup:
 * ledgers whose latest booking is a grace period past are deleted, two per booking, without a scan. A
 * booking the file cannot make is refused (`failed`), never decided by the failure policy.
 */
import { randomInt } from 'node:crypto';
import { type Booking, type Decision, MemoryStore } from '@ratekeeper/core';
import { type Backend, heldAt, info } from './backend.js';
import type { SqliteBinding } from './binding.js';
import { type Ledger, type MemoryBinding, type StoredEntry as Entry, closedDecision, latestBooked, ledgerFrom, ledgerNumbers } from '@ratekeeper/core/store';
import { Failure } from '../file/failure.js';
import { encodeKey } from '../rows/keys.js';
import type { Sql } from '../sql/sql.js';
import { EXPIRED_GRACE_MS } from '../rows/table.js';
import { decodeState, encodeState } from '../rows/codec.js';

const SCRATCH_KEY = 'k';
type Ledgers = NonNullable<MemoryBinding['reservations']>;

export class Reservations {
  readonly #backend: Backend;
  readonly #scratchStore = new MemoryStore({ maxKeys: 16 });
  readonly #scratch = new WeakMap<SqliteBinding, MemoryBinding>();
  readonly #idBase = randomInt(2 ** 20) * 2 ** 32;
  #ids = 0;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  /** book is SqliteStore.reserveAll; `maxWaitMs` -1 means no bound. */
  book(members: readonly SqliteBinding[], key: string, now: number, cost: number, maxWaitMs: number): Booking<'sync'> {
    const stored = encodeKey(key);
    const scratches = members.map((m) => this.#scratchOf(m));
    let booked: Booking<'sync'> | undefined;
    let at = now;
    const done = this.#backend.file.transact(true, (sql) => {
      at = this.#load(sql, members, scratches, stored, now);
      try {
        booked = this.#scratchStore.reserveAll(scratches, SCRATCH_KEY, at, cost, maxWaitMs);
        if (booked.ok) this.#save(sql, members, scratches, stored, at, booked.delayMs > 0 ? this.#ids++ + this.#idBase : undefined);
      } finally {
        for (const s of scratches) clear(s, at);
      }
      sql.expireLedgers.run(at - EXPIRED_GRACE_MS, 2);
    });
    const name = members.map((m) => m.policy.name).join('+');
    if (done instanceof Failure || booked === undefined) {
      if (done instanceof Failure) this.#backend.report(info('reserve', name, done));
      return { ok: false, failed: true, delayMs: Infinity, decisions: members.map((m) => closedDecision(m.policy)), cancel: () => false };
    }
    const b: Booking<'sync'> = booked;
    const entry = this.#lastEntry;
    const decisions: readonly Decision[] = b.ok ? b.decisions : b.decisions.map((d) => heldAt(d, at, now));
    const cancel = (when: number): boolean => (b.ok && entry !== undefined ? this.#cancel(members, scratches, stored, b, entry, when, name) : false);
    return { ok: b.ok, delayMs: b.delayMs + (at - now), decisions, cancel };
  }

  #lastEntry: Entry | undefined;

  #cancel(members: readonly SqliteBinding[], scratches: readonly MemoryBinding[], stored: Uint8Array, booking: Booking<'sync'>, entry: Entry, when: number, name: string): boolean {
    const done = this.#backend.file.transact(true, (sql) => {
      const at = this.#load(sql, members, scratches, stored, when, entry);
      try {
        const cancelled = booking.cancel(at) as boolean;
        if (cancelled) this.#save(sql, members, scratches, stored, at, undefined);
        return cancelled;
      } finally {
        for (const s of scratches) clear(s, at);
      }
    });
    if (!(done instanceof Failure)) return done;
    this.#backend.report(info('cancel', name, done));
    return false;
  }

  /** #load puts each member's state and ledger into its scratch binding; answers the instant to decide at. */
  #load(sql: Sql, members: readonly SqliteBinding[], scratches: readonly MemoryBinding[], stored: Uint8Array, now: number, keep?: Entry): number {
    let at = now;
    for (const m of members) at = Math.max(at, m.table.enter(sql, now));
    members.forEach((m, i) => {
      const scratch = scratches[i] as MemoryBinding;
      const state = m.table.read(sql, stored);
      scratch.restore(SCRATCH_KEY, state === undefined ? undefined : Array.from(state), at);
      const row = sql.ledger.get(m.table.name, stored);
      scratch.reservations =
        row === undefined ? undefined : ({ at: new Map([[SCRATCH_KEY, ledgerFrom(decodeState(row['ledger'] as Uint8Array), keep)]]), sweepAt: 1024 } as unknown as Ledgers);
    });
    return at;
  }

  /** #save writes back what the booking code left: each member's state and ledger; a new booking's entry gets `id`. */
  #save(sql: Sql, members: readonly SqliteBinding[], scratches: readonly MemoryBinding[], stored: Uint8Array, at: number, id: number | undefined): void {
    this.#lastEntry = undefined;
    members.forEach((m, i) => {
      const scratch = scratches[i] as MemoryBinding;
      const state = scratch.snapshot(SCRATCH_KEY);
      if (state === undefined) m.table.remove(sql, stored);
      else m.table.write(sql, stored, Float64Array.from(state), at);
      const ledger = scratch.reservations?.at.get(SCRATCH_KEY) as Ledger | undefined;
      if (ledger === undefined) return;
      const last = ledger.entries[ledger.entries.length - 1] as Entry | undefined;
      if (id !== undefined && last !== undefined) {
        last.id = id; // the same Entry object in every member's ledger
        this.#lastEntry = last;
      }
      sql.putLedger.run(m.table.name, stored, encodeState(Float64Array.from(ledgerNumbers(ledger))), latestBooked(ledger));
    });
  }

  #scratchOf(member: SqliteBinding): MemoryBinding {
    let scratch = this.#scratch.get(member);
    if (scratch === undefined) {
      scratch = this.#scratchStore.bind(member.table.algorithm, member.table.policy);
      this.#scratch.set(member, scratch);
    }
    return scratch;
  }
}

function clear(scratch: MemoryBinding, at: number): void {
  scratch.restore(SCRATCH_KEY, undefined, at);
  scratch.reservations = undefined;
}
