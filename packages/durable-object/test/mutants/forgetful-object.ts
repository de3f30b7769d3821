/**
 * Mutant: an object that keeps its state in memory only (its storage stores nothing and lists
 * nothing), so a restart (eviction, deploy, host move) forgets every key: a ban lifted, a window
 * emptied. The restart test's check must catch it.
 */
import { type ObjectState, RateLimiterObject } from '../../src/index.js';

export class ForgetfulObject extends RateLimiterObject {
  constructor(ctx: ObjectState, env: unknown) {
    super(forgetful(ctx), env);
  }
}

function forgetful(ctx: ObjectState): ObjectState {
  return {
    blockConcurrencyWhile: (callback) => ctx.blockConcurrencyWhile(callback),
    storage: {
      list: async <T>() => new Map<string, T>(),
      put: async () => {},
      delete: async () => 0,
      getAlarm: async () => null,
      setAlarm: async () => {},
    },
  };
}
