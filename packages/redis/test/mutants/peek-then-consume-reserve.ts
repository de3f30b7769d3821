/**
 * MUTANT: a reservation made in two calls, not one atomic script: peek the key, compute the instant
 * from its retryAfterMs, then consume at that instant. Between the two calls another connection can
 * take the same units, so two requests are computed for one slot: the second consume is denied (a
 * request that fits is refused) or, on a key whose state moved, lands somewhere the first-come order
 * never put it. The FIFO test must catch it.
 */
import type { Limiter, Policy } from '@ratekeeper/core';

export interface Granted {
  readonly ok: boolean;
  readonly at: number;
}

export async function peekThenConsume(limiter: Limiter<Policy, 'async'>, key: string, cost: number): Promise<Granted> {
  const now = limiter.clock.now();
  const seen = await limiter.peek(key, cost);
  if (seen.retryAfterMs === Infinity) return { ok: false, at: Infinity };
  const at = now + seen.retryAfterMs;
  const decision = await limiter.binding.consume(key, at, cost);
  return { ok: decision.allowed, at };
}
