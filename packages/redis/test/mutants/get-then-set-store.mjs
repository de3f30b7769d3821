/**
 * MUTANT — a deliberately non-atomic Redis store: it GETs a key's state, runs the same TypeScript step
 * in the process, then SETs the result. Two processes that both read before either writes both admit,
 * so under concurrency it over-admits. The exactness harness must see it exceed the limit, or the
 * harness is not concurrent enough to prove anything about the real store. Never use it.
 */
import { step } from '@ratekeeper/core';

export class GetThenSetStore {
  mode = 'async';

  /** @param {import('ioredis').Redis} client */
  constructor(client, prefix) {
    this.client = client;
    this.prefix = prefix;
  }

  bind(algorithm, policy) {
    const client = this.client;
    const keyOf = (key) => `${this.prefix}${policy.name}:{${key}}`;
    const decide = async (key, now, cost, commit) => {
      const raw = await client.get(keyOf(key));
      const state = raw === null ? undefined : raw.split(' ').map(Number);
      const s = step(algorithm, state, now, cost, policy);
      if (commit && s.decision.allowed) {
        await client.set(keyOf(key), s.nextState.join(' '), 'PX', Math.max(1, Math.ceil(s.ttlMs)));
      }
      return s.decision;
    };
    return {
      consume: (key, now, cost) => decide(key, now, cost, true),
      peek: (key, now, cost) => decide(key, now, cost, false),
      allow: (key, now, cost) => decide(key, now, cost, true).then((d) => d.allowed),
      reset: async (key) => {
        await client.del(keyOf(key));
      },
    };
  }
}
