/**
 * windowVerbs: `charge` and `usage` (rate-limiter-flexible's penalty and get) for the two windows that
 * hold [windowStart, count], the epoch-aligned fixed window and the first-request window. They differ
 * only in which window holds at `now`, which `held` answers; the rest is one code:
 * - `charge` adds `cost` to that window's count, limit or not (the window then denies until it ends);
 * - `usage` reads its count, what is left of the limit, and when it resets (0 when nothing is counted).
 */
import type { Algorithm } from '../algorithm.js';
import type { FirstRequestWindowPolicy, FixedWindowPolicy } from '../policy.js';

/** Held answers the [start, count] of the window at `now` (a fresh one, count 0, where none is held). */
export type Held = (windowMs: number, state: ArrayLike<number> | undefined, offset: number, now: number) => [number, number];

export function windowVerbs<P extends FixedWindowPolicy | FirstRequestWindowPolicy>(held: Held): Pick<Algorithm<P>, 'charge' | 'usage'> {
  return {
    charge(policy, state, offset, now, cost, out) {
      const [start, count] = held(policy.windowMs, state, offset, now);
      out.next[0] = start;
      out.next[1] = count + cost;
      out.ttlMs = Math.ceil(start + policy.windowMs - now);
    },

    usage(policy, state, offset, now, out) {
      const [start, count] = held(policy.windowMs, state, offset, now);
      out.used = count;
      out.remaining = count < policy.limit ? policy.limit - count : 0;
      out.resetAfterMs = count > 0 ? Math.ceil(start + policy.windowMs - now) : 0;
    },
  };
}
