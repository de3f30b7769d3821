/**
 * Sliding-window counter: at most `limit` cost per `windowMs`, estimated from two fixed windows
 * aligned to multiples of `windowMs` since the epoch (Cloudflare's counter). At elapsed e into the
 * current window the estimate is previous·(W − e)/W + current, and a request of cost n fits when the
 * estimate plus n is at most the limit. Since the previous term is never negative, no fixed window ever
 * admits more than `limit`.
 *
 * All comparisons are made scaled by W, in integers: previous·(W − e) + (current + n)·W ≤ limit·W.
 * State is [windowStart, previous, current]. The key is empty two windows after its last count.
 *
 * A clock that steps back into an earlier window is held at the start of the stored window, where the
 * estimate is highest: time going backwards never admits more.
 */
import type { Algorithm, StepOutput } from '../algorithm.js';
import type { SlidingWindowPolicy } from '../policy.js';

export const slidingWindow: Algorithm<SlidingWindowPolicy> = {
  name: 'sliding-window',
  stateSize: 3,

  evaluate(policy, state, offset, now, cost, out) {
    const W = policy.windowMs;
    const L = policy.limit;
    read(W, state, offset, now);
    const start = seen[0] as number;
    const t = seen[1] as number;
    const previous = seen[2] as number;
    const current = seen[3] as number;
    const held = previous * (W - (t - start));
    const heldUnits = Math.ceil(held / W);
    if (cost <= L && held + (current + cost) * W <= L * W) {
      out.allowed = true;
      out.remaining = L - current - cost - heldUnits;
      out.retryAfterMs = 0;
      out.resetAfterMs = out.ttlMs = start + 2 * W - now;
      out.next[0] = start;
      out.next[1] = previous;
      out.next[2] = current + cost;
      return;
    }
    let fitsAt = Infinity;
    if (cost <= L) {
      fitsAt =
        current + cost > L
          ? start + 2 * W - Math.floor(((L - cost) * W) / current) // fits once `current` has slid far enough
          : start + W - Math.floor(((L - current - cost) * W) / previous); // fits within this window
    }
    const emptyAt = current > 0 ? start + 2 * W : previous > 0 ? start + W : t;
    deny(out, fitsAt === Infinity ? Infinity : Math.ceil(fitsAt - now), L - current - heldUnits, Math.ceil(emptyAt - now));
  },

  admit(policy, state, offset, now, cost) {
    const W = policy.windowMs;
    read(W, state, offset, now);
    const start = seen[0] as number;
    const t = seen[1] as number;
    const previous = seen[2] as number;
    const current = seen[3] as number;
    if (cost > policy.limit || previous * (W - (t - start)) + (current + cost) * W > policy.limit * W) return false;
    state[offset] = start;
    state[offset + 1] = previous;
    state[offset + 2] = current + cost;
    return true;
  },

  emptyAt(policy, state, offset) {
    const start = state[offset] as number;
    return (state[offset + 2] as number) > 0 ? start + 2 * policy.windowMs : start + policy.windowMs;
  },

  /** fill is the estimate at `now` over the limit, both scaled by W exactly as evaluate compares them. */
  fill(policy, state, offset, now) {
    const W = policy.windowMs;
    read(W, state, offset, now);
    const held = (seen[2] as number) * (W - ((seen[1] as number) - (seen[0] as number))) + (seen[3] as number) * W;
    return held / (policy.limit * W);
  },

  /**
   * refund gives `cost` back from the previous window's count first, then from the current one's, not
   * below 0. The step cannot know in which window the refunded charge was counted; taking from the
   * previous window first is the safe order: a unit taken there weighs at most what it would in the
   * current window, and the current count never drops below the net (charged minus refunded)
   * admissions of the current window, so no fixed window ever admits more than `limit` net.
   */
  refund(policy, state, offset, now, cost, out) {
    const W = policy.windowMs;
    read(W, state, offset, now);
    const start = seen[0] as number;
    let previous = seen[2] as number;
    let current = seen[3] as number;
    if (!(previous > 0) && !(current > 0)) return false;
    const fromPrevious = previous < cost ? previous : cost;
    previous -= fromPrevious;
    const rest = cost - fromPrevious;
    current = current > rest ? current - rest : 0;
    out.next[0] = start;
    out.next[1] = previous;
    out.next[2] = current;
    out.ttlMs = (current > 0 ? start + 2 * W : start + W) - now;
    return true;
  },

  /** charge adds `cost` to the current window's count, limit or not: the estimate then denies until it has slid below the limit. */
  charge(policy, state, offset, now, cost, out) {
    const W = policy.windowMs;
    read(W, state, offset, now);
    const start = seen[0] as number;
    out.next[0] = start;
    out.next[1] = seen[2] as number;
    out.next[2] = (seen[3] as number) + cost;
    out.ttlMs = start + 2 * W - now;
  },

  /** usage is the estimate at `now`: the current count plus the previous window's weighted count, rounded up (evaluate's held units). */
  usage(policy, state, offset, now, out) {
    const W = policy.windowMs;
    const L = policy.limit;
    read(W, state, offset, now);
    const start = seen[0] as number;
    const t = seen[1] as number;
    const previous = seen[2] as number;
    const current = seen[3] as number;
    const used = current + Math.ceil((previous * (W - (t - start))) / W);
    out.used = used;
    out.remaining = L > used ? L - used : 0;
    const emptyAt = current > 0 ? start + 2 * W : previous > 0 ? start + W : t;
    const reset = Math.ceil(emptyAt - now);
    out.resetAfterMs = used > 0 && reset > 0 ? reset : 0;
  },
};

/**
 * The stored state as seen at `now`: [the current window's start, the instant the estimate is taken at
 * (held at the stored window's start when the clock stepped back), previous, current]. A typed array,
 * because module variables or a returned object would box these doubles: deciding allocates nothing.
 */
const seen = new Float64Array(4);

function read(W: number, state: ArrayLike<number> | undefined, offset: number, now: number): void {
  let start = Math.floor(now / W) * W;
  let t = now;
  let previous = 0;
  let current = 0;
  if (state !== undefined) {
    const stored = state[offset] as number;
    if (start < stored) start = t = stored;
    if (start === stored) {
      previous = state[offset + 1] as number;
      current = state[offset + 2] as number;
    } else if (start === stored + W) {
      previous = state[offset + 2] as number;
    }
  }
  seen[0] = start;
  seen[1] = t;
  seen[2] = previous;
  seen[3] = current;
}

function deny(out: StepOutput, retryAfterMs: number, remaining: number, resetAfterMs: number): void {
  out.allowed = false;
  out.retryAfterMs = retryAfterMs;
  out.remaining = remaining > 0 ? remaining : 0;
  out.resetAfterMs = resetAfterMs > 0 ? resetAfterMs : 0;
  out.ttlMs = 0;
}
