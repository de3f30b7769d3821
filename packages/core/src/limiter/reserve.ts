/**
 * Reserve and wait, for callers that would rather queue than fail (outbound API calls, job runners):
 * `reserve(limiter, key, cost)` answers when the request may go and books it for that instant;
 * `wait(limiter, key, cost, { signal, maxWaitMs })` resolves at that instant. Any core limiter, a
 * CompositeLimiter included, on any store with `reserveAll` (MemoryStore, @ratekeeper/redis's
 * RedisStore): on the memory store `reserve` answers synchronously, on a remote one with a promise.
 *
 * Guarantees, per key, for calls that all go through reserve/wait:
 * - never early: a reservation is recorded by the algorithm's own step at the instant it may go, so the
 *   granted requests, replayed at their instants on a fresh limiter, are all admitted;
 * - first come, first served: a reservation never goes before one made earlier on the key (its instant
 *   is at least the latest booked one), even when a smaller request would fit sooner;
 * - a cost above the limit, or a wait longer than `maxWaitMs`, fails at once and records nothing;
 * - `cancel()` before the instant gives back what the booking took: the key is left exactly as if it
 *   had never been booked, while every booking behind it keeps its instant (its cancel of the latest
 *   booking restores the key bit for bit). Its units serve later requests, which queue behind the
 *   latest booking (first come, first served), and every request that really goes, together with
 *   those, keeps the policy's bound over any interval (memory/memory-ledger.ts says how and proves nothing is
 *   handed back that a later booking relied on). A cancel answers false, giving nothing back, at or
 *   after the instant, the second time, for a booking older than the key's latest CANCELLABLE_BOOKINGS,
 *   and for one made before something other than a booking wrote the key (a consume, a refund).
 * - a composite books all its members at the one instant every member admits, or none; its cancel
 *   gives back on every member or on none.
 *
 * What Go's golang.org/x/time/rate got wrong with reservations, and the cases covered here (tests in
 * test/regressions/go-reservations.test.ts, the Redis port in redis/test/reserve.test.ts):
 * - a reservation that was not ok left a trace that lengthened later delays (golang/go#52584): a
 *   refused reservation (too long, never) records nothing and its cancel answers false;
 * - Reservation.CancelAt restored the wrong number of tokens once other reservations had been made
 *   (golang/go#69419, #56924), and cancels in reverse order did not put the limiter back at
 *   fractional rates: a cancel here replays the other bookings from the state before the first of
 *   them, so it gives back exactly what its booking took and nothing a later one relied on;
 *   reverse-order cancels restore the key bit for bit, at 60 per second too;
 * - a cancel at or after the instant (the request may have gone), or a second cancel, gives nothing;
 * - Wait with a deadline (golang/go#54541): `maxWaitMs` is compared with the exact instant,
 *   inclusively (exactly maxWaitMs is granted, one millisecond more refused at once, before any
 *   timer, recording nothing); an already aborted signal takes nothing; an abort cancels at once.
 *
 * A reservation is booked as state at a future instant; the memory store holds a key's clock at its
 * latest state (time going backwards counts as no time passing), so a plain `consume` on a key with a
 * booking ahead is decided as of that booking but not delayed: use `reserve` (or `wait` with
 * `maxWaitMs: 0`) for every request of a key that queues. Not for a ConcurrencyLimiter (no instant at which a lease
 * returns is known).
 *
 * On a remote store `delayMs` counts from the moment the answer arrived (the store decided a little
 * earlier, on its own clock), so waiting it out is never early. A store that cannot answer books
 * nothing: the reservation is not ok, its decision carries `failure: 'closed'`, and `wait` rejects with
 * a WaitError 'unavailable'. The store's failure policy (fallback, open) is not consulted, on purpose:
 * a local fallback cannot keep the queue that other processes share, and 'open' would let a request
 * go at once that the caller asked to queue — both admissions nobody asked for.
 */
import type { Clock } from '../clock.js';
import { mostRestrictive } from './composite.js';
import type { Decision } from '../decision.js';
import type { RateLimiter } from './limiter.js';
import type { Booking, Mode, Result, Store, StoreBinding } from '../store/contract.js';
import { callError, describeValue, isCost, refuseUnknown } from '../validate.js';

export interface Reservation<M extends Mode = 'sync'> {
  /** Whether the request is booked. */
  readonly ok: boolean;
  /** Milliseconds until the request may go (from the answer): 0 now, Infinity when not ok. */
  readonly delayMs: number;
  /** The limiter clock's instant at which it may go; Infinity when not ok. */
  readonly at: number;
  /**
   * When ok, the decision at `at`; when not, a denial: retryAfterMs is Infinity when the cost never
   * fits, else the wait that exceeded maxWaitMs; `failure: 'closed'` when the store could not answer.
   */
  readonly decision: Decision;
  /** cancel gives back what the booking took, if its instant has not come (see the file comment for when it cannot). */
  cancel(): Result<M, boolean>;
}

export interface ReserveOptions {
  /** The longest acceptable wait in milliseconds (default Infinity); a longer one fails, recording nothing. */
  readonly maxWaitMs?: number;
}

export interface WaitOptions extends ReserveOptions {
  /** Aborting stops the wait, cancels the reservation and rejects with a WaitError ('aborted'). */
  readonly signal?: AbortSignal;
}

/**
 * WaitError is how `wait` rejects: the request never fits, would wait too long, the wait was aborted,
 * or the store could not book it.
 */
export class WaitError extends Error {
  readonly reason: 'never' | 'too-long' | 'aborted' | 'unavailable';
  readonly decision: Decision | undefined;
  constructor(reason: WaitError['reason'], decision?: Decision) {
    super(MESSAGES[reason]);
    this.name = 'WaitError';
    this.reason = reason;
    this.decision = decision;
  }
}

const MESSAGES: Record<WaitError['reason'], string> = {
  never: 'wait: the cost exceeds what the limit can ever grant',
  'too-long': 'wait: the request would wait longer than maxWaitMs',
  aborted: 'wait: aborted',
  unavailable: 'wait: the store could not book the request (its failure event says why)',
};

/** Target is what reserve needs of a limiter: its store, the bindings to book and its clock. */
interface Target {
  readonly mode: Mode;
  readonly store: Store;
  readonly bindings: readonly StoreBinding[];
  readonly clock: Clock;
}
const targets = new WeakMap<object, Target>();

/** reserve books `cost` for `key` at the first instant it may go (see the file comment). */
export function reserve(limiter: RateLimiter<'sync'>, key: string, cost?: number, options?: ReserveOptions): Reservation<'sync'>;
export function reserve(limiter: RateLimiter<'async'>, key: string, cost?: number, options?: ReserveOptions): Promise<Reservation<'async'>>;
export function reserve(limiter: RateLimiter, key: string, cost?: number, options?: ReserveOptions): Reservation<'sync'> | Promise<Reservation<'async'>>;
export function reserve(limiter: RateLimiter, key: string, cost = 1, options: ReserveOptions = {}): Reservation<'sync'> | Promise<Reservation<'async'>> {
  const target = targetOf(limiter);
  const { clock, store, bindings } = target;
  const now = clock.now();
  let maxWaitMs: number;
  try {
    if (typeof key !== 'string' || !isCost(cost) || !Number.isFinite(now)) throw callError('reserve', key, cost, now);
    maxWaitMs = checkMaxWait(options);
  } catch (error) {
    if (target.mode === 'sync') throw error;
    return Promise.reject(error);
  }
  const booking = (store.reserveAll as NonNullable<Store['reserveAll']>)(bindings, key, now, cost, maxWaitMs === Infinity ? -1 : maxWaitMs);
  if (target.mode === 'sync') return reservation(booking as Booking<'sync'>, now, clock, bindings.length);
  return (booking as Promise<Booking<'async'>>).then((b) => reservation(b, clock.now(), clock, bindings.length));
}

/**
 * wait resolves with the decision when `cost` may go for `key`, or rejects with a WaitError at once; a
 * refused call (bad key, cost, clock reading or limiter) rejects with reserve's TypeError or RangeError.
 */
export function wait(limiter: RateLimiter, key: string, cost = 1, options: WaitOptions = {}): Promise<Decision> {
  let signal: AbortSignal | undefined;
  let booked: Reservation<Mode> | Promise<Reservation<Mode>>;
  try {
    checkOptions('wait', options, WAIT_OPTIONS);
    signal = options.signal;
    if (signal !== undefined && (typeof signal !== 'object' || signal === null || typeof signal.addEventListener !== 'function')) {
      throw new TypeError(`wait: signal must be an AbortSignal, got ${describeValue(signal)}`);
    }
    if (signal?.aborted) return Promise.reject(new WaitError('aborted'));
    booked = reserve(limiter, key, cost, options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs });
  } catch (error) {
    return Promise.reject(error); // a refused call rejects: wait never throws synchronously
  }
  const clock = clockOf(limiter);
  return booked instanceof Promise ? booked.then((r) => waitFor(r, signal, clock)) : waitFor(booked, signal, clock);
}

/** waitFor waits out a reservation: resolves at its instant, rejects at once when not ok or when aborted. */
function waitFor(r: Reservation<Mode>, signal: AbortSignal | undefined, clock: Clock): Promise<Decision> {
  if (!r.ok) return Promise.reject(new WaitError(refusalOf(r.decision), r.decision));
  if (signal?.aborted) return cancelThenReject(r);
  if (r.delayMs === 0) return Promise.resolve(r.decision);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      stop();
      cancelThenReject(r).catch(reject);
    };
    const stop = whenDue(clock, r, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve(r.decision);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * whenDue runs `fire` once `r`'s instant has come, and answers a function that stops it. Node's timers
 * run on a loop time cached in whole milliseconds, so a timer can fire a little before the limiter's
 * clock reaches the instant: while a clock that moves is still short of it, the rest is waited out. A
 * clock that did not move at all (a ManualClock under fake timers) leaves the timer the authority.
 * Used by `wait` and by the adapters' delay mode (http/decide/delay.ts).
 */
export function whenDue(clock: Clock, r: Reservation<Mode>, fire: () => void): () => void {
  let armedAt = clock.now();
  const due = () => {
    const now = clock.now();
    if (now < r.at && now > armedAt) {
      armedAt = now;
      timer = setTimeout(due, r.at - now);
      return;
    }
    fire();
  };
  let timer = setTimeout(due, r.delayMs);
  return () => clearTimeout(timer);
}

/** clockOf is the clock `reserve` books `limiter` on (the limiter's, or a composite's first member's). */
export function clockOf(limiter: RateLimiter): Clock {
  return targetOf(limiter).clock;
}

/** cancelThenReject cancels (on a remote store, waits for the cancel to be answered) and rejects 'aborted'. */
function cancelThenReject(r: Reservation<Mode>): Promise<never> {
  const aborted = new WaitError('aborted', r.decision);
  const cancelled = r.cancel();
  return cancelled instanceof Promise ? cancelled.then(() => Promise.reject(aborted)) : Promise.reject(aborted);
}

function refusalOf(decision: Decision): WaitError['reason'] {
  if (decision.failure !== undefined) return 'unavailable';
  return decision.retryAfterMs === Infinity ? 'never' : 'too-long';
}

/** reservation turns a store's booking, answered at `now` on the limiter's clock, into a Reservation. */
function reservation<M extends Mode>(booking: Booking<M>, now: number, clock: Clock, members: number): Reservation<M> {
  const merged = members === 1 ? (booking.decisions[0] as Decision) : mostRestrictive(booking.decisions);
  if (!booking.ok) {
    const decision = booking.failed === true ? merged : { ...merged, allowed: false, retryAfterMs: booking.delayMs };
    return { ok: false, delayMs: Infinity, at: Infinity, decision, cancel: () => booking.cancel(clock.now()) as Result<M, boolean> };
  }
  return { ok: true, delayMs: booking.delayMs, at: now + booking.delayMs, decision: merged, cancel: () => booking.cancel(clock.now()) };
}

const RESERVE_OPTIONS: ReadonlySet<string> = new Set(['maxWaitMs']);
const WAIT_OPTIONS: ReadonlySet<string> = new Set(['maxWaitMs', 'signal']);

/** checkOptions refuses options that are not an object, or name an option `owner` does not take ({ maxWait } for maxWaitMs). */
function checkOptions(owner: string, options: unknown, known: ReadonlySet<string>): void {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${owner}: options must be an object, got ${describeValue(options)}`);
  refuseUnknown(owner, options, known);
}

function checkMaxWait(options: ReserveOptions): number {
  checkOptions('reserve', options, RESERVE_OPTIONS);
  const maxWaitMs = options.maxWaitMs ?? Infinity;
  if (typeof maxWaitMs !== 'number' || !(maxWaitMs >= 0)) {
    const message = `reserve: maxWaitMs must be a number >= 0, got ${describeValue(maxWaitMs)}`;
    throw typeof maxWaitMs === 'number' ? new RangeError(message) : new TypeError(message);
  }
  return maxWaitMs;
}

/** reservable tells whether `reserve` takes this limiter (delay mode checks it once, at construction). */
export function reservable(limiter: unknown): boolean {
  try {
    targetOf(limiter as RateLimiter);
    return true;
  } catch {
    return false;
  }
}

/** targetOf finds (once per limiter) the store and bindings to book on, or throws a TypeError. */
function targetOf(limiter: RateLimiter): Target {
  const known = typeof limiter === 'object' && limiter !== null ? targets.get(limiter) : undefined;
  if (known !== undefined) return known;
  const bookable = typeof limiter === 'object' && limiter !== null ? limiter.bookable : undefined;
  if (bookable === undefined) throw new TypeError(`reserve: limiter must be a single-policy core limiter or a CompositeLimiter, got ${describeValue(limiter)}`);
  const target: Target = { mode: limiter.mode, store: bookable.store, bindings: bookable.bindings, clock: bookable.clock };
  if (typeof target.store.reserveAll !== 'function') throw new TypeError("reserve: the limiter's store cannot book reservations (it has no reserveAll)");
  // A lease comes back when a request ends, at no instant anyone knows: nothing can be booked for it.
  if (bookable.policies.some((p) => p.algorithm === 'concurrency'))
    throw new TypeError('reserve: a ConcurrencyLimiter cannot book a future instant (a lease returns when a request ends); use allow and release');
  targets.set(limiter, target);
  return target;
}
