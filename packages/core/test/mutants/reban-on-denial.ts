/**
 * Mutant: bans that count a denial inside a ban as a new offence, restarting the ban on every
 * request made while banned (a client retrying politely stays banned forever). The ban tests must
 * catch it.
 */
import type { Decision, StoreBinding } from '../../src/index.js';
import { bannedDecision } from '../../src/decision.js';
import type { MemoryBinding } from '../../src/store/index.js';

export function rebanOnDenial(inner: MemoryBinding, banMs: number): StoreBinding<'sync'> {
  const until = new Map<string, number>();
  const consume = (key: string, now: number, cost: number): Decision => {
    const end = until.get(key);
    if (end !== undefined && now < end) {
      until.set(key, now + banMs);
      return bannedDecision(inner.policy, end - now);
    }
    const d = inner.consume(key, now, cost);
    if (d.allowed || d.retryAfterMs === Infinity) return d;
    until.set(key, now + banMs);
    return bannedDecision(inner.policy, banMs);
  };
  return { consume, peek: (k, n, c) => inner.peek(k, n, c), allow: (k, n, c) => consume(k, n, c).allowed, reset: (k) => void (until.delete(k), inner.reset(k)) };
}
