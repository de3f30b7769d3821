/**
 * Reserve and wait, for callers that would rather queue than fail (outbound API calls, job runners):
 * `reserve(limiter, key, cost)` answers when the request may go and books it for that instant;
 * `wait(limiter, key, cost, { signal, maxWaitMs })` resolves at that instant. Memory store only: a
 * limiter on another store is refused with a TypeError (Redis reservations are not implemented).
 *
 * Guarantees, per key, for calls that all go through reserve/wait:
 * - never early: a reservation is recorded by the algorithm's own step at the instant it may go, so the
 *   granted requests, replayed at their instants on a fresh limiter, are all admitted;
 * - first come, first served: a reservation never goes before one made earlier on the key (its instant
 *   is at least the latest booked one), even when a smaller request would fit sooner;
 * - a cost above the limit, or a wait longer than `maxWaitMs`, fails at once and records nothing;
 * - `cancel()` before the instant gives the units back, restoring the key's state exactly, when nothing
 *   was booked on the key since. When something was, it returns false and the units stay spent:
 *   handing them back would let the later booking, computed with them spent, exceed the limit.
 *
 * A reservation is booked as state at a future instant; the memory store holds a key's clock at its
 * latest state (time going backwards counts as no time passing), so a plain `consume` on a key with a
 * booking ahead is decided as of that booking but not delayed: use `reserve` (or `wait` with
 * `maxWaitMs: 0`) for every request of a key that queues. Not for composites (a single policy each),
 * nor for a ConcurrencyLimiter (no instant at which a lease returns is known).
 */
import type { Decision } from './decision.js';
import type { Limiter } from './limiter.js';
import { MemoryBinding } from './memory-store.js';
import type { Policy } from './policy.js';
import { callError, describeValue, isCost } from './validate.js';

export interface Reservation {
  /** Whether the request is booked. */
  readonly ok: boolean;
  /** Milliseconds from the call until the request may go: 0 now, Infinity when not ok. */
  readonly delayMs: number;
  /** The limiter clock's instant at which it may go; Infinity when not ok. */
  readonly at: number;
  /** When ok, the decision at `at`; when not, the denial (retryAfterMs Infinity: the cost never fits). */
  readonly decision: Decision;
  /** cancel gives the units back if the reservation has not begun and nothing was booked after it. */
  cancel(): boolean;
}

export interface ReserveOptions {
  /** The longest acceptable wait in milliseconds (default Infinity); a longer one fails, recording nothing. */
  readonly maxWaitMs?: number;
}

export interface WaitOptions extends ReserveOptions {
  /** Aborting stops the wait, cancels the reservation and rejects with a WaitError ('aborted'). */
  readonly signal?: AbortSignal;
}

/** WaitError is how `wait` rejects: the request never fits, would wait too long, or the wait was aborted. */
export class WaitError extends Error {
  readonly reason: 'never' | 'too-long' | 'aborted';
  readonly decision: Decision | undefined;
  constructor(reason: WaitError['reason'], decision?: Decision) {
    super(
      reason === 'never' ? 'wait: the cost exceeds what the limit can ever grant' : reason === 'too-long' ? 'wait: the request would wait longer than maxWaitMs' : 'wait: aborted',
    );
    this.name = 'WaitError';
    this.reason = reason;
    this.decision = decision;
  }
}

/**
 * The latest booked instant per key, per binding. Entries at or before now mean nothing and are swept
 * when the map has doubled since the last sweep (amortised O(1) per call).
 */
interface Bookings {
  readonly at: Map<string, number>;
  sweepAt: number;
}
const booked = new WeakMap<MemoryBinding, Bookings>();

/** reserve books `cost` for `key` at the first instant it may go (see the file comment). */
export function reserve(limiter: Limiter<Policy, 'sync'>, key: string, cost = 1, options: ReserveOptions = {}): Reservation {
  const binding = memoryBinding('reserve', limiter);
  const now = limiter.clock.now();
  if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) throw callError('reserve', key, cost, now);
  const maxWaitMs = options.maxWaitMs ?? Infinity;
  if (typeof maxWaitMs !== 'number' || !(maxWaitMs >= 0)) {
    const message = `reserve: maxWaitMs must be a number >= 0, got ${describeValue(maxWaitMs)}`;
    throw typeof maxWaitMs === 'number' ? new RangeError(message) : new TypeError(message);
  }
  const latest = latestOf(binding, key, now);
  const seen = binding.peek(key, now, cost);
  if (seen.retryAfterMs === Infinity) return failed(seen);
  const at = Math.max(now + seen.retryAfterMs, latest);
  if (at - now > maxWaitMs) return failed({ ...seen, retryAfterMs: at - now });
  const before = binding.snapshot(key);
  const decision = binding.consume(key, at, cost);
  if (!decision.allowed) return failed(decision); // unreachable while retryAfterMs is exact
  const after = binding.snapshot(key);
  const map = (booked.get(binding) as Bookings).at;
  const previous = map.get(key);
  if (at > now) map.set(key, at);
  let live = true;
  const cancel = (): boolean => {
    if (!live || limiter.clock.now() >= at || !same(binding.snapshot(key), after)) return false;
    live = false;
    binding.restore(key, before, limiter.clock.now());
    if (previous === undefined) map.delete(key);
    else map.set(key, previous);
    return true;
  };
  return { ok: true, delayMs: at - now, at, decision, cancel };
}

/**
 * wait resolves with the decision when `cost` may go for `key`, or rejects with a WaitError at once; a
 * refused call (bad key, cost, clock reading or limiter) rejects with reserve's TypeError or RangeError.
 */
export function wait(limiter: Limiter<Policy, 'sync'>, key: string, cost = 1, options: WaitOptions = {}): Promise<Decision> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new WaitError('aborted'));
  let r: Reservation;
  try {
    r = reserve(limiter, key, cost, options);
  } catch (error) {
    return Promise.reject(error); // a refused call rejects: wait never throws synchronously
  }
  if (!r.ok) return Promise.reject(new WaitError(r.decision.retryAfterMs === Infinity ? 'never' : 'too-long', r.decision));
  if (r.delayMs === 0) return Promise.resolve(r.decision);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      r.cancel();
      reject(new WaitError('aborted', r.decision));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(r.decision);
    }, r.delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function memoryBinding(owner: string, limiter: Limiter<Policy, 'sync'>): MemoryBinding {
  const binding = (limiter as { binding?: unknown } | null)?.binding;
  if (!(binding instanceof MemoryBinding)) throw new TypeError(`${owner}: limiter must be a single-policy limiter on a MemoryStore, got ${describeValue(limiter)}`);
  // A lease comes back when a request ends, at no instant anyone knows: nothing can be booked for it.
  if (binding.policy.algorithm === 'concurrency')
    throw new TypeError(`${owner}: a ConcurrencyLimiter cannot book a future instant (a lease returns when a request ends); use allow and release`);
  if (!booked.has(binding)) booked.set(binding, { at: new Map(), sweepAt: 1024 });
  return binding;
}

/** latestOf is the latest instant booked on `key` still ahead of `now` (-Infinity for none). */
function latestOf(binding: MemoryBinding, key: string, now: number): number {
  const bookings = booked.get(binding) as Bookings;
  const map = bookings.at;
  if (map.size >= bookings.sweepAt) {
    for (const [k, at] of map) if (at <= now) map.delete(k);
    bookings.sweepAt = Math.max(1024, 2 * map.size);
  }
  const at = map.get(key);
  return at !== undefined && at > now ? at : -Infinity;
}

function failed(decision: Decision): Reservation {
  return { ok: false, delayMs: Infinity, at: Infinity, decision, cancel: () => false };
}

function same(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}
