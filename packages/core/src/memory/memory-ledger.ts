/**
 * The booking ledger of one key on one MemoryBinding: what a cancel needs to give back exactly what the
 * cancelled booking took while every booking behind it keeps its instant (reserve.ts's contract).
 *
 * A booking's units cannot simply be handed back: the bookings behind it were placed with them spent,
 * and the algorithms' state is a summary (a bucket's level, a window's count), so subtracting a cost
 * from it can be more generous than the requests that really go allow (a bucket that would have been
 * full anyway). The ledger instead keeps the key's state before its first pending booking (`base`) and
 * each booking's instant and cost. A cancel replays the algorithm's own step from `base` through the
 * other bookings at their instants; every core algorithm is monotone (a state that has spent less
 * admits whatever a state that spent more admits, and stays behind it), so each is admitted again,
 * and the result is the key's state exactly as if the cancelled booking had never been made. A
 * booking later made on that state is therefore admitted with every request that really goes, so the
 * policy's bound over any interval holds for them, and first come, first served still holds (no new
 * booking goes before `latestBooked`).
 *
 * Bounds: the ledger keeps the latest CANCELLABLE_BOOKINGS bookings; an older one (folded into `base`)
 * and one whose instant has come cannot be cancelled. A write the ledger did not make (a consume, a
 * refund, an eviction) changes the key's state away from `head`: the bookings before it can then no
 * longer be cancelled (their units stay spent, the safe side), and the next booking starts a new ledger.
 * RedisStore keeps the same ledger in the same way (packages/redis/src/lua/reserve-script.ts), so both
 * answer every cancel alike.
 */

/**
 * Replayer is what the ledger needs of a binding: its step run on a snapshot, changing nothing held
 * (MemoryBinding.stepFrom). Declared here so that the ledger does not depend on the binding that keeps it.
 */
interface Replayer {
  stepFrom(state: readonly number[] | undefined, at: number, cost: number): number[] | null;
}

/** CANCELLABLE_BOOKINGS is how many of a key's latest bookings a cancel can give back (reserve.ts). */
export const CANCELLABLE_BOOKINGS = 64;

/** Entry is one booking: its instant and cost. A composite's booking is one Entry in each member's ledger. */
export interface Entry {
  readonly at: number;
  readonly cost: number;
}

export interface Ledger {
  /** The key's state before the first entry (undefined: none held). */
  base: number[] | undefined;
  /** The state the entries leave, which the key holds while nothing but bookings wrote it. */
  head: number[] | undefined;
  /** The bookings, in booking order (so their instants never decrease). */
  entries: Entry[];
  /** The latest instant booked before the first entry (-Infinity: none). */
  floor: number;
}

/** latestBooked is the latest instant booked on the ledger's key (first come, first served). */
export function latestBooked(ledger: Ledger): number {
  const last = ledger.entries[ledger.entries.length - 1];
  return last === undefined ? ledger.floor : last.at;
}

/**
 * record adds a booking made at `now` that took the key from `before` to `after`, and answers the
 * ledger to keep: a new one when the key was written by something else since (`before` is not `head`).
 * Bookings whose instant has come are folded into `base` first, then the oldest while the ledger is full.
 */
export function record(binding: Replayer, ledger: Ledger | undefined, before: number[] | undefined, after: number[] | undefined, entry: Entry, now: number): Ledger {
  if (ledger === undefined || !same(before, ledger.head)) {
    ledger = { base: before, head: before, entries: [], floor: ledger === undefined ? -Infinity : latestBooked(ledger) };
  }
  const entries = ledger.entries;
  let folded = 0;
  while (folded < entries.length && ((entries[folded] as Entry).at <= now || entries.length - folded >= CANCELLABLE_BOOKINGS)) folded++;
  if (folded > 0) {
    const base = replay(binding, ledger.base, entries.slice(0, folded));
    if (base === null) ledger = { base: before, head: before, entries: [], floor: latestBooked(ledger) };
    else {
      ledger.base = base;
      ledger.floor = Math.max(ledger.floor, (entries[folded - 1] as Entry).at);
      ledger.entries = entries.slice(folded);
    }
  }
  ledger.entries.push(entry);
  ledger.head = after;
  return ledger;
}

/**
 * without answers the state the key would hold had `entry` never been booked, or null when the ledger
 * cannot tell (the entry is not in it, the key was written by something else, or a step refused).
 */
export function without(binding: Replayer, ledger: Ledger | undefined, entry: Entry, held: number[] | undefined): number[] | undefined | null {
  if (ledger === undefined || !ledger.entries.includes(entry) || !same(held, ledger.head)) return null;
  // The replay must reproduce what the key holds (it always does unless the table was swept under it).
  const all = replay(binding, ledger.base, ledger.entries);
  if (all === null || !same(all, ledger.head)) return null;
  return replay(
    binding,
    ledger.base,
    ledger.entries.filter((e) => e !== entry),
  );
}

/** remove takes `entry` out of the ledger, whose key now holds `state`. */
export function remove(ledger: Ledger, entry: Entry, state: number[] | undefined): void {
  ledger.entries = ledger.entries.filter((e) => e !== entry);
  ledger.head = state;
}

/** replay runs the step from `state` through `entries` at their instants: the state after, or null if one is refused. */
function replay(binding: Replayer, state: number[] | undefined, entries: readonly Entry[]): number[] | undefined | null {
  let held = state;
  for (const e of entries) {
    const next = binding.stepFrom(held, e.at, e.cost);
    if (next === null) return null;
    held = next;
  }
  return held;
}

/** same compares two snapshots bit for bit (-0 and NaN included). */
export function same(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}
