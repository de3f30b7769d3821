/**
 * Bookings on rows (core's reserve.ts contract: never early, first come first served per key, a cancel
 * before the instant leaving every member as if never booked while the bookings behind keep theirs),
 * run by the memory store's own booking code rather than written again: each part's state and its
 * booking ledger (a row of its own under the policy's name + LEDGER_SUFFIX, core's ledgerNumbers
 * layout) are loaded into a scratch MemoryBinding, MemoryStore.reserveAll (memory-reserve.ts,
 * memory-ledger.ts) books on them or cancelBooking cancels, and the states and ledgers they leave go
 * back into the rows. The rows are locked by the store, so the result is the memory store's for every
 * process sharing them. A ledger row expires with the latest instant booked on it.
 *
 * A booking's ledger entry carries the op's `id`, so its cancel, a later op, finds it again. Both are
 * stateless: a store that runs a batch again (a lost connection) books again from the rows it then
 * reads, and only the attempt that commits is answered.
 */
import { MemoryStore } from '../../memory/memory-store.js';
import type { MemoryBinding } from '../../memory/memory-binding.js';
import { type Ledger, latestBooked } from '../../memory/memory-ledger.js';
import { cancelBooking } from '../../memory/memory-reserve.js';
import { type StoredEntry, ledgerFrom, ledgerNumbers } from '../ledger-numbers.js';
import type { BookOp, Booked, CancelOp, Part } from './ops.js';
import { type Rows, writeRow } from './row.js';

const KEY = 'k';
type Ledgers = NonNullable<MemoryBinding['reservations']>;

/** book runs a booking op (see above). */
export function book(op: BookOp, rows: Rows, at: number): Booked {
  const scratches = load(op.parts, op.ledgers, rows, at, undefined);
  const booking = scratches.store.reserveAll(scratches.bindings, KEY, at, op.cost, op.maxWaitMs);
  if (!booking.ok) return { ok: false, delayMs: booking.delayMs, decisions: booking.decisions, cancellable: false };
  const cancellable = booking.delayMs > 0;
  save(op.parts, op.ledgers, rows, scratches.bindings, at, cancellable ? op.id : undefined);
  return { ok: true, delayMs: booking.delayMs, decisions: booking.decisions, cancellable };
}

/** cancel runs a cancel op: true when booking `op.id` was given back. */
export function cancel(op: CancelOp, rows: Rows, at: number): boolean {
  const first = rows.get((op.ledgers[0] as { id: string }).id)?.state;
  const entry = first === undefined ? undefined : (ledgerFrom(first).entries as StoredEntry[]).find((e) => e.id === op.id);
  if (entry === undefined) return false;
  const scratches = load(op.parts, op.ledgers, rows, at, entry);
  if (!cancelBooking(scratches.bindings, KEY, entry, at)) return false;
  save(op.parts, op.ledgers, rows, scratches.bindings, at, undefined);
  return true;
}

/** load puts each part's state and ledger into a scratch binding of its own (`keep`: the entry a cancel looks for, by identity). */
function load(parts: readonly Part[], ledgers: BookOp['ledgers'], rows: Rows, at: number, keep: StoredEntry | undefined) {
  const store = new MemoryStore({ maxKeys: 16 });
  const bindings = parts.map((part, i) => {
    const scratch = store.bind(part.algorithm, part.policy);
    const state = rows.get(part.id)?.state;
    scratch.restore(KEY, state === undefined ? undefined : Array.from(state), at);
    const ledger = rows.get((ledgers[i] as { id: string }).id)?.state;
    scratch.reservations = { at: new Map(ledger === undefined ? [] : [[KEY, ledgerFrom(ledger, keep)]]), sweepAt: 1024 } as Ledgers;
    return scratch;
  });
  return { store, bindings };
}

/** save writes back what the scratches hold; a new cancellable booking's entry gets `id` (the same entry in every ledger). */
function save(parts: readonly Part[], ledgers: BookOp['ledgers'], rows: Rows, bindings: readonly MemoryBinding[], at: number, id: number | undefined): void {
  bindings.forEach((scratch, i) => {
    const part = parts[i] as Part;
    const state = scratch.snapshot(KEY);
    const next = state === undefined ? undefined : Float64Array.from(state);
    const expiresAt = next === undefined ? 0 : part.algorithm.emptyAt(part.policy, next, 0);
    if (!same(rows.get(part.id)?.state, next)) writeRow(rows, part.id, next, expiresAt, next === undefined ? 0 : part.algorithm.fill(part.policy, next, 0, at));
    const ledgerId = (ledgers[i] as { id: string }).id;
    const ledger = scratch.reservations?.at.get(KEY) as Ledger | undefined;
    if (ledger === undefined) {
      if (rows.get(ledgerId)?.state !== undefined) writeRow(rows, ledgerId, undefined, 0);
      return;
    }
    const last = ledger.entries[ledger.entries.length - 1] as StoredEntry | undefined;
    if (id !== undefined && last !== undefined) last.id ??= id;
    writeRow(rows, ledgerId, Float64Array.from(ledgerNumbers(ledger)), latestBooked(ledger));
  });
}

function same(a: Float64Array | undefined, b: Float64Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}
