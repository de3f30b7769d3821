/**
 * MUTANTS of reserve, each the real one with a single defect:
 * - `queueJumpingReserve` books at now + retryAfterMs, ignoring the bookings ahead on the key: a small
 *   request slips in before a large one booked earlier (and, on the windows, goes before the instant
 *   its booking is recorded at);
 * - `eagerCancelReserve` restores the state from before the reservation even when later bookings were
 *   computed with its units spent (giving back units that are no longer its to give);
 * - `lastOnlyCancelReserve` is the rule before the booking ledger: a cancel succeeds only while no
 *   booking made after it on the key is still live, so in a burst an aborted request keeps its units.
 */
import { type Limiter, type Policy, type Reservation, type ReserveOptions, reserve } from '../../src/index.js';
import { type MemoryBinding } from '../../src/store/index.js';

export type ReserveFn = (limiter: Limiter<Policy, 'sync'>, key: string, cost: number, options?: ReserveOptions) => Reservation;

export const queueJumpingReserve: ReserveFn = (limiter, key, cost) => {
  const binding = limiter.binding as MemoryBinding;
  const now = limiter.clock.now();
  const seen = binding.peek(key, now, cost);
  if (seen.retryAfterMs === Infinity) return reserve(limiter, key, cost);
  const at = now + seen.retryAfterMs;
  const decision = binding.consume(key, at, cost);
  return { ok: decision.allowed, delayMs: at - now, at, decision, cancel: () => false };
};

export const eagerCancelReserve: ReserveFn = (limiter, key, cost, options) => {
  const binding = limiter.binding as MemoryBinding;
  const before = binding.snapshot(key);
  const r = reserve(limiter, key, cost, options);
  if (!r.ok) return r;
  return {
    ...r,
    cancel: () => {
      if (limiter.clock.now() >= r.at) return false;
      binding.restore(key, before, limiter.clock.now());
      return true;
    },
  };
};

/** The live bookings per limiter and key, in booking order, for lastOnlyCancelReserve. */
const booked = new WeakMap<object, Map<string, Reservation[]>>();

export const lastOnlyCancelReserve: ReserveFn = (limiter, key, cost, options) => {
  const r = reserve(limiter, key, cost, options);
  if (!r.ok) return r;
  const keys = booked.get(limiter) ?? new Map<string, Reservation[]>();
  booked.set(limiter, keys);
  const list = keys.get(key) ?? [];
  keys.set(key, list);
  const mine: Reservation = {
    ...r,
    cancel: () => {
      if (list[list.length - 1] !== mine || !r.cancel()) return false;
      list.pop();
      return true;
    },
  };
  list.push(mine);
  return mine;
};
