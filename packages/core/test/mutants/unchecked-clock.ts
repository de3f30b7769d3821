/**
 * MUTANTS. Limiters that check the key and the cost but pass whatever their clock answers straight to
 * the store, as every limiter did before clock readings were checked: a clock answering NaN makes the
 * fixed window admit everything and the others deny everything with `retryAfterMs: NaN`.
 */
import { type Decision, type Limiter, type Policy, type RateLimiter, mostRestrictive } from '../../src/index.js';
import { allowAll, decideAll } from '../../src/memory/memory-all.js';
import type { MemoryBinding } from '../../src/memory/memory-binding.js';

/** uncheckedClock is `limiter` with the clock check taken out. */
export function uncheckedClock(limiter: Limiter<Policy, 'sync'>): RateLimiter<'sync'> {
  const { binding, clock } = limiter;
  return {
    mode: 'sync',
    policies: limiter.policies,
    consume: (key, cost = 1) => binding.consume(key, clock.now(), cost),
    peek: (key, cost = 1) => binding.peek(key, clock.now(), cost),
    allow: (key, cost = 1) => binding.allow(key, clock.now(), cost),
    reset: (key) => binding.reset(key),
  };
}

/** uncheckedComposite is a memory-store CompositeLimiter over `members` with the clock check taken out. */
export function uncheckedComposite(members: readonly Limiter<Policy, 'sync'>[]): RateLimiter<'sync'> {
  const bindings = members.map((m) => m.binding) as unknown as MemoryBinding[];
  const clock = (members[0] as Limiter<Policy, 'sync'>).clock;
  const decide = (key: string, cost: number, commit: boolean): Decision => mostRestrictive(decideAll(bindings, key, clock.now(), cost, commit));
  return {
    mode: 'sync',
    policies: members.map((m) => m.policy),
    consume: (key, cost = 1) => decide(key, cost, true),
    peek: (key, cost = 1) => decide(key, cost, false),
    allow: (key, cost = 1) => allowAll(bindings, key, clock.now(), cost),
    reset: (key) => {
      for (const m of members) m.reset(key);
    },
  };
}
