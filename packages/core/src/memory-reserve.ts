/**
 * Bookings on the memory store (Store.reserveAll, reserve.ts's contract): one synchronous pass over
 * one binding (a single limiter) or several (a composite's members), so no other call can come between
 * reading the key and recording the booking.
 *
 * The instant is max(now + the largest retryAfterMs of the bindings at now, the latest booking on any
 * of them). Every core algorithm, once it admits a cost at an instant, admits it at every later one
 * when nothing else is recorded, so every binding admits at that instant, and each records the
 * algorithm's own step there (all or nothing, decideAll). Each binding remembers its latest booked
 * instant per key; a cancel compares every binding's state with the one its booking left and, when
 * all are unchanged (nothing was recorded on the key since) and the instant is still ahead, puts back
 * the states from before, bit for bit, and the bookings it replaced.
 */
import type { Decision } from './decision.js';
import { storedKey } from './key-digest.js';
import { decideAll } from './memory-all.js';
import type { MemoryBinding } from './memory-store.js';
import type { Booking } from './store.js';

/**
 * The latest booked instant per key lives on each binding (`MemoryBinding.reservations`, so that its
 * `reset` forgets the key's). Entries at or before now mean nothing and are swept when the map has
 * doubled since the last sweep (amortised O(1) per call).
 */
type Bookings = NonNullable<MemoryBinding['reservations']>;

/** bookAll is MemoryStore.reserveAll; `maxWaitMs` -1 means no bound. */
export function bookAll(bindings: readonly MemoryBinding[], rawKey: string, now: number, cost: number, maxWaitMs: number): Booking<'sync'> {
  const key = storedKey(rawKey);
  let latest = -Infinity;
  let retry = 0;
  const seen: Decision[] = [];
  for (const binding of bindings) {
    const at = latestOf(binding, key, now);
    if (at > latest) latest = at;
    binding.evaluate(key, now, cost);
    const d = binding.decision();
    if (d.retryAfterMs > retry) retry = d.retryAfterMs;
    seen.push(d);
  }
  if (retry === Infinity) return refused(Infinity, seen);
  const at = Math.max(now + retry, latest);
  if (maxWaitMs >= 0 && at - now > maxWaitMs) return refused(at - now, seen);
  const before = bindings.map((b) => b.snapshot(key));
  const decisions = decideAll(bindings, rawKey, at, cost, true); // decideAll takes the key as given
  if (!decisions.every((d) => d.allowed)) return refused(at - now, decisions); // unreachable while retryAfterMs is exact
  const after = bindings.map((b) => b.snapshot(key));
  const previous = bindings.map((b) => (b.reservations as Bookings).at.get(key));
  if (at > now) for (const b of bindings) (b.reservations as Bookings).at.set(key, at);
  let live = true;
  const cancel = (when: number): boolean => {
    if (!live || !(when < at) || !bindings.every((b, i) => same(b.snapshot(key), after[i]))) return false;
    live = false;
    for (const [i, b] of bindings.entries()) {
      b.restore(key, before[i], when);
      const map = (b.reservations as Bookings).at;
      const p = previous[i];
      if (p === undefined) map.delete(key);
      else map.set(key, p);
    }
    return true;
  };
  return { ok: true, delayMs: at - now, decisions, cancel };
}

/** latestOf is the latest instant booked on `key` (as stored) still ahead of `now` (-Infinity for none). */
function latestOf(binding: MemoryBinding, key: string, now: number): number {
  let bookings = binding.reservations;
  if (bookings === undefined) binding.reservations = bookings = { at: new Map(), sweepAt: 1024 };
  const map = bookings.at;
  if (map.size >= bookings.sweepAt) {
    for (const [k, at] of map) if (at <= now) map.delete(k);
    bookings.sweepAt = Math.max(1024, 2 * map.size);
  }
  const at = map.get(key);
  return at !== undefined && at > now ? at : -Infinity;
}

const never = (): false => false;

function refused(delayMs: number, decisions: readonly Decision[]): Booking<'sync'> {
  return { ok: false, delayMs, decisions, cancel: never };
}

function same(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}
