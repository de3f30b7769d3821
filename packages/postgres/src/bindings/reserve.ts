/**
 * Reservations on a PostgresStore (PostgresStore.reserveAll, core's reserve.ts contract: never early,
 * first come first served per key, a cancel before the instant leaving every member as if never booked
 * while the bookings behind keep their instants).
 *
 * A booking, and a cancel, is one op of the store's next batch (../wire/batcher.ts), so one transaction that
 * locks each member's state row and its booking-ledger row with the batch's other rows. Inside it, the
 * memory store's own booking code runs: each member's state and ledger are loaded into a scratch
 * MemoryBinding, core's MemoryStore.reserveAll (memory-reserve.ts, memory-ledger.ts) books on them,
 * and the states and ledgers it leaves go back into the batch's rows, written with its COMMIT. The
 * rows are locked, so the result is exactly the memory store's for every process sharing the table;
 * nothing of the ledger's replay logic is rewritten here. Time is the batch's (the database's clock by
 * default), as for every decision.
 *
 * A ledger is a row of its own under the policy's name with '#book' appended (core's policy names
 * never contain '#'), its state the ledger's numbers (core's ledgerNumbers layout), its expiry the latest
 * instant booked on it: the sweep deletes it once nothing booked on it is ahead.
 *
 * A batch the database runs again (an 'expired' answer, a killed connection) books again from the rows
 * it then reads: only the attempt that commits is answered. Failure: a booking the database could not
 * make is refused (`failed`, every member's decision the 'closed' denial), reported through the store's
 * 'failure' event ('reserve'), and never decided by the failure policy: a local fallback cannot keep
 * the queue other processes share, and 'open' would send at once a request its caller asked to queue.
 * A cancel the database could not make answers false ('cancel'): the units stay spent, the safe side.
 */
import { randomInt } from 'node:crypto';
import { type Booking, MemoryStore } from '@ratekeeper/core';
import {
  Failure,
  type Ledger,
  type MemoryBinding,
  type StoredEntry as Entry,
  cancelBooking,
  closedDecision,
  failureInfo,
  latestBooked,
  ledgerFrom,
  ledgerNumbers,
} from '@ratekeeper/core/store';
import { type Op, type RowState, writeRow } from '../rows/apply.js';
import type { PostgresBinding } from './binding.js';

const SCRATCH_KEY = 'k';
type Ledgers = NonNullable<MemoryBinding['reservations']>;

/**
 * Bookings runs the bookings and cancels of one store's batches on scratch bindings of its own (the
 * batch applies its ops one by one, synchronously, so one scratch per member is enough).
 */
export class Bookings {
  readonly #store = new MemoryStore({ maxKeys: 16 });
  readonly #scratch = new WeakMap<PostgresBinding, MemoryBinding>();
  readonly #idBase = randomInt(2 ** 20) * 2 ** 32;
  #ids = 0;

  /** book is PostgresStore.reserveAll over `members` (one binding, or a composite's); `maxWaitMs` -1 means no bound. */
  book(members: readonly PostgresBinding[], key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
    const backend = (members[0] as PostgresBinding).backend;
    const name = members.map((m) => m.policy.name).join('+');
    let result: { booking: Booking<'sync'>; entry: Entry | undefined } | undefined;
    const op: Op = {
      kind: 'book',
      parts: members.map((m) => m.part(key)),
      ledgers: members.map((m) => m.ledgerRow(key)),
      now,
      cost,
      commit: true,
      book: (rows, at) => {
        result = this.#run(members, rows, op, at, undefined, (scratches) => {
          const booking = this.#store.reserveAll(scratches, SCRATCH_KEY, at, cost, maxWaitMs);
          return { booking, changed: booking.ok };
        });
        return result.booking.decisions;
      },
    };
    return new Promise((resolve) => {
      backend.batcher.add(op, (answer) => {
        if (answer instanceof Failure || result === undefined) {
          backend.report(failureInfo('reserve', name, answer instanceof Failure ? answer : new Failure('reply')));
          resolve({ ok: false, failed: true, delayMs: Infinity, decisions: members.map((m) => closedDecision(m.policy)), cancel: never });
          return;
        }
        const { booking, entry } = result;
        const cancel = booking.ok && entry !== undefined ? this.#canceller(members, key, booking, entry, name) : never;
        resolve({ ok: booking.ok, delayMs: booking.delayMs, decisions: booking.decisions, cancel });
      });
    });
  }

  /** canceller is a booking's cancel: one op of a batch, at most one success. */
  #canceller(members: readonly PostgresBinding[], key: string, booking: Booking<'sync'>, entry: Entry, name: string): (now: number) => Promise<boolean> {
    const backend = (members[0] as PostgresBinding).backend;
    let live = true;
    return (now) => {
      if (!live) return Promise.resolve(false);
      let done = false;
      const op: Op = {
        kind: 'book',
        parts: members.map((m) => m.part(key)),
        ledgers: members.map((m) => m.ledgerRow(key)),
        now,
        cost: 0,
        commit: true,
        book: (rows, at) => {
          done = false;
          // Stateless (the batch may run again): the once-only flag is `live`, set when the answer comes.
          this.#run(members, rows, op, at, entry, (scratches) => {
            done = cancelBooking(scratches, SCRATCH_KEY, entry, at);
            return { booking, changed: done };
          });
          return undefined;
        },
      };
      return new Promise((resolve) => {
        backend.batcher.add(op, (answer) => {
          if (answer instanceof Failure) {
            backend.report(failureInfo('cancel', name, answer));
            return resolve(false);
          }
          if (done) live = false;
          resolve(done);
        });
      });
    };
  }

  /**
   * run loads every member's state and ledger from `rows` into its scratch binding, runs `act` on the
   * scratches at `at`, and puts what they then hold back into `rows` (a new cancellable booking's
   * entry gets an id, so its cancel finds it again); the scratches are emptied whatever happens.
   */
  #run(
    members: readonly PostgresBinding[],
    rows: Map<string, RowState>,
    op: Op,
    at: number,
    keep: Entry | undefined,
    act: (scratches: MemoryBinding[]) => { booking: Booking<'sync'>; changed: boolean },
  ): { booking: Booking<'sync'>; entry: Entry | undefined } {
    const scratches = members.map((m) => this.#scratchOf(m));
    const parts = op.parts;
    const ledgers = op.ledgers as readonly string[];
    try {
      scratches.forEach((scratch, i) => {
        const state = (rows.get((parts[i] as { row: string }).row) as RowState).state;
        scratch.restore(SCRATCH_KEY, state === undefined ? undefined : Array.from(state), at);
        const ledger = (rows.get(ledgers[i] as string) as RowState).state;
        scratch.reservations = ledger === undefined ? undefined : ({ at: new Map([[SCRATCH_KEY, ledgerFrom(ledger, keep)]]), sweepAt: 1024 } as unknown as Ledgers);
      });
      const { booking, changed } = act(scratches);
      let entry: Entry | undefined;
      // A booking that changed nothing (refused), or a cancel that gave nothing back, writes nothing.
      if (!changed) return { booking, entry };
      scratches.forEach((scratch, i) => {
        const state = scratch.snapshot(SCRATCH_KEY);
        const part = parts[i] as Op['parts'][number];
        const written = (rows.get(part.row) as RowState).state;
        if (!sameState(written, state))
          writeRow(rows, part.row, state === undefined ? undefined : Float64Array.from(state), state === undefined ? 0 : part.algorithm.emptyAt(part.policy, state, 0));
        const ledger = scratch.reservations?.at.get(SCRATCH_KEY) as Ledger | undefined;
        if (ledger === undefined) return;
        const last = ledger.entries[ledger.entries.length - 1] as Entry | undefined;
        if (keep === undefined && booking.delayMs > 0 && last !== undefined) {
          last.id ??= this.#idBase + this.#ids++; // the same Entry object in every member's ledger
          entry = last;
        }
        writeRow(rows, ledgers[i] as string, Float64Array.from(ledgerNumbers(ledger)), latestBooked(ledger));
      });
      return { booking, entry };
    } finally {
      for (const scratch of scratches) {
        scratch.restore(SCRATCH_KEY, undefined, at);
        scratch.reservations = undefined;
      }
    }
  }

  #scratchOf(member: PostgresBinding): MemoryBinding {
    let scratch = this.#scratch.get(member);
    if (scratch === undefined) {
      scratch = this.#store.bind(member.algorithm, member.policy);
      this.#scratch.set(member, scratch);
    }
    return scratch;
  }
}

function sameState(a: Float64Array | undefined, b: readonly number[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === undefined && b === undefined;
  return a.length === b.length && b.every((x, i) => Object.is(x, a[i]));
}

const never = (): Promise<boolean> => Promise.resolve(false);
