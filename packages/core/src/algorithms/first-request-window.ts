/**
 * First-request window: at most `limit` cost in each window of `windowMs`, where a key's window starts
 * at the first request that finds no live window (the instant it is admitted) and ends `windowMs`
 * later; the next request after that starts the key's next window. This is the window the peers count
 * by (express-rate-limit and rate-limit-redis, @fastify/rate-limit, rate-limiter-flexible): each
 * client's `Retry-After` runs to the end of its own window, and clients do not all reset at one
 * instant as they do on the epoch-aligned fixed window (./fixed-window.ts). Like any fixed window, a
 * client can spend two limits around the end of its window.
 *
 * State is [windowStart, count], as the aligned fixed window's. A window is live while
 * `now < windowStart + windowMs`. A clock that steps back before the stored start is still inside the
 * stored window (its count holds, its reset is measured from the real `now`), so time going backwards
 * never opens a window early. A denial starts no window: it changes no state.
 *
 * `charge` adds to the live window's count past the limit if it must (starting a window where none is
 * live); the window then denies until it ends. `usage` reads the live window's count.
 */
import type { Algorithm } from '../algorithm.js';
import { windowVerbs } from './window-verbs.js';
import type { FirstRequestWindowPolicy } from '../policy.js';

export const firstRequestWindow: Algorithm<FirstRequestWindowPolicy> = {
  name: 'first-request-window',
  stateSize: 2,

  evaluate(policy, state, offset, now, cost, out) {
    const W = policy.windowMs;
    let start = now;
    let count = 0;
    if (state !== undefined) {
      const stored = state[offset] as number;
      if (now < stored + W) {
        start = stored;
        count = state[offset + 1] as number;
      }
    }
    const end = Math.ceil(start + W - now);
    out.resetAfterMs = end;
    if (count + cost <= policy.limit) {
      out.allowed = true;
      out.remaining = policy.limit - count - cost;
      out.retryAfterMs = 0;
      out.ttlMs = end;
      out.next[0] = start;
      out.next[1] = count + cost;
      return;
    }
    out.allowed = false;
    out.remaining = count < policy.limit ? policy.limit - count : 0; // a charge may have gone past it
    out.retryAfterMs = cost > policy.limit ? Infinity : end;
    out.ttlMs = 0;
  },

  admit(policy, state, offset, now, cost) {
    const stored = state[offset] as number;
    const live = now < stored + policy.windowMs;
    const count = live ? (state[offset + 1] as number) : 0;
    if (count + cost > policy.limit) return false;
    state[offset] = live ? stored : now;
    state[offset + 1] = count + cost;
    return true;
  },

  emptyAt(policy, state, offset) {
    return (state[offset] as number) + policy.windowMs;
  },

  fill(policy, state, offset, now) {
    return now < (state[offset] as number) + policy.windowMs ? (state[offset + 1] as number) / policy.limit : 0;
  },

  /**
   * refund lowers the live window's count by `cost`, not below 0; a charge from a window that has
   * ended is not given back (the next request starts a fresh window anyway).
   */
  refund(policy, state, offset, now, cost, out) {
    const stored = state[offset] as number;
    const count = state[offset + 1] as number;
    if (!(now < stored + policy.windowMs) || !(count > 0)) return false;
    out.next[0] = stored;
    out.next[1] = count > cost ? count - cost : 0;
    out.ttlMs = Math.ceil(stored + policy.windowMs - now);
    return true;
  },

  // charge and usage: the window at `now` as `held` answers it (./window-verbs.ts).
  ...windowVerbs(held),
};

/** held is the live window's [start, count] at `now`, or a window starting at `now` with nothing in it (for the verbs, off the hot path). */
function held(W: number, state: ArrayLike<number> | undefined, offset: number, now: number): [number, number] {
  if (state !== undefined && now < (state[offset] as number) + W) return [state[offset] as number, state[offset + 1] as number];
  return [now, 0];
}
