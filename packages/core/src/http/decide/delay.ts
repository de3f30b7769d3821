/**
 * Delay mode (`mode: 'delay'`): a request over the limit waits until it fits instead of being refused,
 * for up to `maxDelayMs` (default 1000); a request that would wait longer, or whose cost never fits,
 * is refused as in the default mode ('limit'), with a Retry-After of the wait it would have had.
 *
 * Each request is booked with core's `reserve` (reserve.ts: never early, first come first served per
 * key, a cancel leaves no trace), so requests of one key go in arrival order and none goes before the
 * limit admits it. The Decision the adapter sees is the one taken at the instant the request goes, so
 * the RateLimit headers describe the state at that moment. When the client goes away during the wait
 * (its socket closes; the adapter says how to find the socket), the booking is cancelled at once and
 * the request resolves to null, which the adapter answers with nothing. Its units come back (the key
 * is left as if it had never been booked), also when later requests of the key were booked behind
 * it: those keep their instants, and the units serve the requests that come after them (reserve.ts's
 * cancel; bounds there). An adapter that cannot watch the connection (none given to prepareRateLimit) refuses
 * delay mode at construction rather than hold waits nobody can release (the Web-standard adapters hand
 * the Request's signal, which the runtime aborts when the client disconnects). A store that cannot book refuses the request with its 'closed' decision (503), never
 * an admission nobody could count (reserve.ts explains why no fallback).
 *
 * The bound defaults to one second because a held request holds a connection: under a flood, each key
 * holds at most about rate × maxDelayMs requests at once, and everything beyond is answered 429 at
 * once, as in the default mode.
 */
import type { Clock } from '../../clock.js';
import type { Decision } from '../../decision.js';
import type { RateLimiter } from '../../limiter/limiter.js';
import { type Reservation, clockOf, reservable, reserve, whenDue } from '../../limiter/reserve.js';
import type { Mode } from '../../store/contract.js';
import { describeValue } from '../../validate.js';

/** DEFAULT_MAX_DELAY_MS bounds a delayed request's wait when `maxDelayMs` is not given. */
export const DEFAULT_MAX_DELAY_MS = 1000;

/** ClientSocket is the little of a client connection delay mode watches: whether and when it closes. */
export interface ClientSocket {
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

export interface DelayOptions {
  /** 'limit' (default) refuses a request over the limit; 'delay' holds it until it fits, up to maxDelayMs. */
  readonly mode?: 'limit' | 'delay';
  /** With mode 'delay': the longest a request is held, in ms (default 1000); a longer wait is refused. */
  readonly maxDelayMs?: number;
}

/**
 * checkDelay validates the mode options; it answers the bound in delay mode, else undefined. Delay mode
 * needs limiters `reserve` takes (every core limiter and composite, on a store with reserveAll) and
 * cannot be combined with shadow mode (which never blocks, so has nothing to delay).
 */
export function checkDelay(owner: string, o: DelayOptions, shadow: boolean, limiters: readonly RateLimiter[]): number | undefined {
  const mode = o.mode === undefined ? 'limit' : o.mode;
  if (mode !== 'limit' && mode !== 'delay') throw new TypeError(`${owner}: mode must be 'limit' or 'delay', got ${describeValue(mode)}`);
  if (mode === 'limit') {
    if (o.maxDelayMs !== undefined) throw new TypeError(`${owner}: maxDelayMs applies to mode 'delay' only`);
    return undefined;
  }
  const bound = o.maxDelayMs === undefined ? DEFAULT_MAX_DELAY_MS : o.maxDelayMs;
  if (typeof bound !== 'number' || !Number.isInteger(bound) || bound < 0 || bound > 2 ** 31 - 1) {
    const message = `${owner}: maxDelayMs must be a whole number of milliseconds from 0 to 2147483647, got ${describeValue(bound)}`;
    throw typeof bound === 'number' ? new RangeError(message) : new TypeError(message);
  }
  if (shadow) throw new TypeError(`${owner}: mode 'delay' cannot be combined with shadow: true (shadow mode never holds a request)`);
  // A lease returns when a request ends, at no known instant: there is nothing to wait for (reserve.ts).
  if (limiters.some((l) => l.policies.some((p) => p.algorithm === 'concurrency')))
    throw new TypeError(`${owner}: mode 'delay' cannot wait for a concurrency limit (a lease returns when a request ends, at no instant known in advance); use mode 'limit'`);
  if (!limiters.every(reservable)) throw new TypeError(`${owner}: mode 'delay' needs core limiters on a store that can book reservations (MemoryStore, RedisStore)`);
  return bound;
}

/**
 * delayed books the request and answers its decision: at once when it may go now or is refused, else
 * once its instant has come (a promise), or null when the client went away first (the booking then
 * cancelled, nothing counted).
 */
export function delayed(limiter: RateLimiter, key: string, cost: number, maxDelayMs: number, socket: ClientSocket | undefined): Decision | Promise<Decision | null> {
  const booked = reserve(limiter, key, cost, { maxWaitMs: maxDelayMs }) as Reservation<Mode> | Promise<Reservation<Mode>>;
  const clock = clockOf(limiter);
  return booked instanceof Promise ? booked.then((r) => hold(r, socket, clock)) : hold(booked, socket, clock);
}

function hold(r: Reservation<Mode>, socket: ClientSocket | undefined, clock: Clock): Decision | Promise<Decision | null> {
  if (!r.ok || r.delayMs === 0) return r.decision;
  if (socket?.destroyed === true) return release(r);
  return new Promise((resolve) => {
    const onClose = () => {
      stop();
      release(r).then(resolve, () => resolve(null));
    };
    const stop = whenDue(clock, r, () => {
      socket?.off('close', onClose);
      resolve(r.decision);
    });
    socket?.once('close', onClose);
  });
}

/** release cancels a booking whose client left and answers null once the cancel is done. */
function release(r: Reservation<Mode>): Promise<null> {
  const cancelled = r.cancel();
  return cancelled instanceof Promise ? cancelled.then(() => null) : Promise.resolve(null);
}
