/**
 * Fixed window: at most `limit` cost in each window of `windowMs`, windows aligned to multiples of
 * `windowMs` since the epoch. Cheapest and simplest, but a client can spend two limits across a window
 * boundary; prefer the sliding-window counter unless that is acceptable.
 *
 * `charge` adds to the window's count past the limit if it must; the window then denies until it ends.
 * `usage` reads the count of the window at `now`.
 *
 * State is [windowStart, count]. A clock that steps back into an earlier window is held at the start of
 * the stored window, so time going backwards never admits more.
 */
import type { Algorithm } from '../algorithm.js';
import { windowVerbs } from './window-verbs.js';
import type { FixedWindowPolicy } from '../policy.js';

export const fixedWindow: Algorithm<FixedWindowPolicy> = {
  name: 'fixed-window',
  stateSize: 2,

  evaluate(policy, state, offset, now, cost, out) {
    const W = policy.windowMs;
    let start = Math.floor(now / W) * W;
    let count = 0;
    if (state !== undefined) {
      const stored = state[offset] as number;
      if (start < stored) start = stored;
      if (start === stored) count = state[offset + 1] as number;
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
    const W = policy.windowMs;
    const stored = state[offset] as number;
    let start = Math.floor(now / W) * W;
    if (start < stored) start = stored;
    const count = start === stored ? (state[offset + 1] as number) : 0;
    if (count + cost > policy.limit) return false;
    state[offset] = start;
    state[offset + 1] = count + cost;
    return true;
  },

  emptyAt(policy, state, offset) {
    return (state[offset] as number) + policy.windowMs;
  },

  fill(policy, state, offset, now) {
    const stored = state[offset] as number;
    const start = Math.floor(now / policy.windowMs) * policy.windowMs;
    return start <= stored ? (state[offset + 1] as number) / policy.limit : 0;
  },

  /**
   * refund lowers the stored window's count by `cost`, not below 0, while that window is the current
   * one; a charge from a window that has ended is not given back (its window's count no longer
   * matters, and moving it into the current window would admit more than the limit there).
   */
  refund(policy, state, offset, now, cost, out) {
    const W = policy.windowMs;
    const stored = state[offset] as number;
    let start = Math.floor(now / W) * W;
    if (start < stored) start = stored;
    const count = state[offset + 1] as number;
    if (start !== stored || !(count > 0)) return false;
    out.next[0] = stored;
    out.next[1] = count > cost ? count - cost : 0;
    out.ttlMs = Math.ceil(stored + W - now);
    return true;
  },

  // charge and usage: the window at `now` as `held` answers it (./window-verbs.ts).
  ...windowVerbs(held),
};

/** held is the [start, count] of the window at `now`, as evaluate holds it (inline there: the hot path), for the verbs. */
function held(W: number, state: ArrayLike<number> | undefined, offset: number, now: number): [number, number] {
  let start = Math.floor(now / W) * W;
  let count = 0;
  if (state !== undefined) {
    const stored = state[offset] as number;
    if (start < stored) start = stored;
    if (start === stored) count = state[offset + 1] as number;
  }
  return [start, count];
}
