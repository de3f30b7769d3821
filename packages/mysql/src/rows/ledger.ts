/**
 * A key's booking ledger on MySqlStore (core's reserve.ts contract; the memory store's is
 * memory/memory-ledger.ts, and this one answers every booking and cancel as it does): what a cancel
 * needs to give back exactly what its booking took while the bookings behind it keep their instants.
 *
 * A booking's units cannot be subtracted from a state (a bucket's level, a window's count is a summary,
 * and the bookings behind were placed with them spent). The ledger keeps the key's state before its
 * first pending booking (`base`), the state the bookings left (`head`) and each booking's instant, cost
 * and id; a cancel replays the algorithm's own step from `base` through the other bookings, which every
 * core algorithm admits again (they are monotone), and that is the key's state as if the cancelled
 * booking had never been made. Bounds: the latest CANCELLABLE_BOOKINGS bookings stay cancellable,
 * older ones and those whose instant has come are folded into `base`. A write the ledger did not make
 * (a consume, a refund) leaves the key away from `head`: the bookings before it can no longer be
 * cancelled (their units stay spent, the safe side) and the next booking starts a new ledger, whose
 * `floor` keeps the latest instant booked so far (first come, first served).
 *
 * Stored as a row of its own policy, `<policy name>#book` (no policy name contains '#'), next to the
 * key's state, as doubles (./codec.ts): latest, floor, base and head (each its length, -1 for none,
 * then its numbers), the number of entries, then each entry's at, cost, id. The row's expiry is the
 * latest booked instant, so the sweep deletes a ledger once nothing booked on it is ahead.
 */
import { type Algorithm, type Policy } from '@ratekeeper/core';
import { CANCELLABLE_BOOKINGS, type Ledger as CoreLedger, ledgerFrom, ledgerNumbers, stepOutput } from '@ratekeeper/core/store';

/** Entry is one booking: its instant, its cost and its id (a composite's booking is one entry per member, one id). */
export interface Entry {
  readonly at: number;
  readonly cost: number;
  readonly id: number;
}

export interface Ledger {
  base: readonly number[] | undefined;
  head: readonly number[] | undefined;
  entries: Entry[];
  floor: number;
}

/** Step is the algorithm's step on a state (the ledger's replay), changing nothing. */
export interface Replayer {
  readonly policy: Policy;
  readonly algorithm: Algorithm<Policy>;
}

/** LEDGER is the "algorithm" of a ledger row: never evaluated; its row is empty once its latest booking has come. */
export const LEDGER: Algorithm<Policy> = {
  name: 'fixed-window',
  stateSize: 1,
  evaluate() {
    throw new TypeError('MySqlStore: a booking ledger is not a step');
  },
  emptyAt: (_policy, state, offset) => state[offset] as number,
  fill: () => 1,
};

/** latest is the latest instant booked on the ledger's key. */
export function latest(ledger: Ledger): number {
  const last = ledger.entries[ledger.entries.length - 1];
  return last === undefined ? ledger.floor : last.at;
}

/**
 * record adds `entry`, booked at `now`, which took the key from `before` to `after`: a new ledger when
 * the key was written by something else since (`before` is not `head`). Entries whose instant has come,
 * then the oldest while the ledger is full, are folded into `base` first.
 */
export function record(m: Replayer, ledger: Ledger | undefined, before: readonly number[] | undefined, after: readonly number[], entry: Entry, now: number): Ledger {
  let l: Ledger =
    ledger !== undefined && same(before, ledger.head)
      ? ledger
      : { base: before, head: before, entries: [], floor: ledger === undefined ? Number.NEGATIVE_INFINITY : latest(ledger) };
  const entries = l.entries;
  let folded = 0;
  while (folded < entries.length && ((entries[folded] as Entry).at <= now || entries.length - folded >= CANCELLABLE_BOOKINGS)) folded++;
  if (folded > 0) {
    const base = replay(m, l.base, entries.slice(0, folded));
    if (base === null) l = { base: before, head: before, entries: [], floor: latest(l) };
    else l = { base, head: l.head, entries: entries.slice(folded), floor: Math.max(l.floor, (entries[folded - 1] as Entry).at) };
  }
  l.entries.push(entry);
  l.head = after;
  return l;
}

/**
 * without answers the ledger and the key's state had the booking `id` booked at `at` never been made,
 * or null when the ledger cannot tell (not in it, the key written by something else, a step refused).
 */
export function without(
  m: Replayer,
  ledger: Ledger | undefined,
  id: number,
  at: number,
  held: ArrayLike<number> | undefined,
): { ledger: Ledger; state: readonly number[] | undefined } | null {
  if (ledger === undefined || !same(held, ledger.head)) return null;
  const rest = ledger.entries.filter((e) => !(e.id === id && e.at === at));
  if (rest.length !== ledger.entries.length - 1) return null;
  const all = replay(m, ledger.base, ledger.entries);
  if (all === null || !same(all, ledger.head)) return null;
  const state = replay(m, ledger.base, rest);
  if (state === null) return null;
  return { ledger: { ...ledger, entries: rest, head: state }, state };
}

function replay(m: Replayer, state: readonly number[] | undefined, entries: readonly Entry[]): readonly number[] | undefined | null {
  let held = state;
  for (const e of entries) {
    const out = stepOutput(m.algorithm.stateSize);
    m.algorithm.evaluate(m.policy, held, 0, e.at, e.cost, out);
    if (!out.allowed) return null;
    held = Array.from(out.next);
  }
  return held;
}

/** same compares two states bit for bit (-0 and NaN included). */
export function same(a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/** encodeLedger is the row state of `ledger` (layout in the file comment: its latest instant, then core's ledgerNumbers). */
export function encodeLedger(ledger: Ledger): Float64Array {
  return Float64Array.from([latest(ledger), ...ledgerNumbers(ledger as unknown as CoreLedger)]);
}

/** decodeLedger reads a ledger row's state back (undefined: no ledger); every entry has its id (a booking's, never negative). */
export function decodeLedger(state: Float64Array | undefined): Ledger | undefined {
  return state === undefined ? undefined : (ledgerFrom(state.subarray(1)) as unknown as Ledger);
}
