/**
 * Bookings on the memory store (Store.reserveAll, reserve.ts's contract): one synchronous pass over
 * one binding (a single limiter) or several (a composite's members), so no other call can come between
 * reading the key and recording the booking.
 *
 * The instant is max(now + the largest retryAfterMs of the bindings at now, the latest booking on any
 * of them). Every core algorithm, once it admits a cost at an instant, admits it at every later one
 * when nothing else is recorded, so every binding admits at that instant, and each records the
 * algorithm's own step there (all or nothing, decideAll). Each binding keeps a ledger of the key's
 * bookings still ahead (memory-ledger.ts); a cancel before the instant puts every member's key in the
 * state it would hold had the booking never been made, all or nothing, and the bookings behind it keep
 * their instants.
 */
import type { Decision } from '../decision.js';
import { storedKey } from './key-digest.js';
import { decideAll } from './memory-all.js';
import { type Entry, type Ledger, latestBooked, record, remove, without } from './memory-ledger.js';
import type { MemoryBinding } from './memory-binding.js';
import type { Booking } from '../store/contract.js';

/**
 * The ledger per key lives on each binding (`MemoryBinding.reservations`, so that its `reset` forgets
 * the key's). Ledgers whose latest booking is at or before now mean nothing and are swept when the map
 * has doubled since the last sweep (amortised O(1) per call).
 */
type Ledgers = NonNullable<MemoryBinding['reservations']>;

/** bookAll is MemoryStore.reserveAll; `maxWaitMs` -1 means no bound. */
export function bookAll(bindings: readonly MemoryBinding[], rawKey: string, now: number, cost: number, maxWaitMs: number): Booking<'sync'> {
  const key = storedKey(rawKey);
  let ahead = -Infinity;
  let retry = 0;
  const seen: Decision[] = [];
  for (const binding of bindings) {
    const at = latestOf(binding, key, now);
    if (at > ahead) ahead = at;
    binding.evaluate(key, now, cost);
    const d = binding.decision();
    if (d.retryAfterMs > retry) retry = d.retryAfterMs;
    seen.push(d);
  }
  if (retry === Infinity) return refused(Infinity, seen);
  const at = Math.max(now + retry, ahead);
  if (maxWaitMs >= 0 && at - now > maxWaitMs) return refused(at - now, seen);
  const before = bindings.map((b) => b.snapshot(key));
  const decisions = decideAll(bindings, rawKey, at, cost, true); // decideAll takes the key as given
  if (!decisions.every((d) => d.allowed)) return refused(at - now, decisions); // unreachable while retryAfterMs is exact
  // A booking that goes now cannot be cancelled (its instant has come): it is left out of the ledgers,
  // whose next booking then finds the key written and starts afresh.
  if (!(at > now)) return { ok: true, delayMs: at - now, decisions, cancel: never };
  const entry: Entry = { at, cost };
  for (const [i, b] of bindings.entries()) {
    const map = (b.reservations as Ledgers).at;
    map.set(key, record(b, map.get(key), before[i], b.snapshot(key), entry, now));
  }
  let live = true;
  const cancel = (when: number): boolean => {
    if (!live || !cancelBooking(bindings, key, entry, when)) return false;
    live = false;
    return true;
  };
  return { ok: true, delayMs: at - now, decisions, cancel };
}

/**
 * cancelBooking takes the booking `entry` out of every binding's ledger and key (as stored), all or
 * none, if `when` is before its instant; it answers whether it did. Stateless, unlike a Booking's
 * cancel: a store that runs the memory store's booking code on rows it loads (and may run a cancel
 * again when its transaction is retried) cancels through it, keeping its own once-only flag.
 */
export function cancelBooking(bindings: readonly MemoryBinding[], key: string, entry: Entry, when: number): boolean {
  if (!(when < entry.at)) return false;
  // No ledger (a binding that never booked, or whose key was reset): nothing to give back.
  const ledgers = bindings.map((b) => b.reservations?.at.get(key));
  const states = bindings.map((b, i) => without(b, ledgers[i], entry, b.snapshot(key)));
  if (states.some((s) => s === null)) return false;
  for (const [i, b] of bindings.entries()) {
    const state = states[i] as number[] | undefined;
    b.restore(key, state, when);
    remove(ledgers[i] as Ledger, entry, b.snapshot(key));
  }
  return true;
}

/** latestOf is the latest instant booked on `key` (as stored) still ahead of `now` (-Infinity for none). */
function latestOf(binding: MemoryBinding, key: string, now: number): number {
  let ledgers = binding.reservations;
  if (ledgers === undefined) binding.reservations = ledgers = { at: new Map(), sweepAt: 1024 };
  const map = ledgers.at;
  if (map.size >= ledgers.sweepAt) {
    for (const [k, ledger] of map) if (latestBooked(ledger) <= now) map.delete(k);
    ledgers.sweepAt = Math.max(1024, 2 * map.size);
  }
  const ledger = map.get(key);
  const at = ledger === undefined ? -Infinity : latestBooked(ledger);
  return at > now ? at : -Infinity;
}

const never = (): false => false;

function refused(delayMs: number, decisions: readonly Decision[]): Booking<'sync'> {
  return { ok: false, delayMs, decisions, cancel: never };
}
