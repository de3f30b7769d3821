/**
 * Usage: what a key has spent under one policy at an instant, read without deciding anything — the
 * answer of a limiter's `usage(key)` (rate-limiter-flexible's `get`) and of `charge(key, cost)` (its
 * `penalty`), where `peek` would instead decide for one more request.
 *
 * - `used` is the units the key holds now: a window's count (the sliding-window counter's estimate,
 *   rounded up), the units still inside a sliding log's window, a token bucket's tokens taken. It is
 *   never negative, and it exceeds `limit` only after a `charge` went past it (a sliding log holds at
 *   most `limit` instants, so it never does);
 * - `remaining` is `limit − used`, never below 0: what a request could still take now;
 * - `resetAfterMs` is the time until the key is back to its empty state (0 for an empty key);
 * - `blockedMs` is the time left in a ban on the key (BanLimiter: limiter/ban.ts), 0 when none stands.
 *
 * A Usage is a plain readonly value, like a Decision.
 */
import type { UsageOutput } from './algorithm.js';
import type { Policy } from './policy.js';

export interface Usage {
  /** Units the key holds now (never negative; above `limit` only after a charge past it). */
  readonly used: number;
  /** The policy's quota (capacity or limit). */
  readonly limit: number;
  /** Whole units a request could still take now: `limit − used`, never below 0. */
  readonly remaining: number;
  /** Milliseconds until the key is back to its empty state; 0 for an empty key. */
  readonly resetAfterMs: number;
  /** Milliseconds left in a ban on the key (BanLimiter), 0 when none stands. */
  readonly blockedMs: number;
  readonly policy: Policy;
}

/** toUsage copies a usage step's figures into a fresh Usage; a ban of `blockedMs` leaves nothing to take. */
export function toUsage(out: UsageOutput, policy: Policy, blockedMs = 0): Usage {
  const banned = blockedMs > 0;
  return {
    used: out.used,
    limit: policy.limit,
    remaining: banned ? 0 : out.remaining,
    resetAfterMs: banned && blockedMs > out.resetAfterMs ? blockedMs : out.resetAfterMs,
    blockedMs: banned ? blockedMs : 0,
    policy,
  };
}
