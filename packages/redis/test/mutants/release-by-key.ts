/**
 * MUTANT. A RedisStore whose concurrency release removes any `cost` leases of the key (ZPOPMIN), not
 * this process's own by id: releasing an admission that took no lease in Redis (an 'open' failure
 * decision, or another process's) frees a lease still in use. faults-concurrency.test.ts must catch it.
 */
import type { Redis } from 'ioredis';
import type { RedisStoreOptions } from '../../src/index.js';
import { RedisStore } from '../../src/index.js';

export function releaseByKeyStore(options: RedisStoreOptions & { client: Redis }): RedisStore {
  const store = new RedisStore(options);
  const bind = store.bind.bind(store);
  store.bind = ((algorithm: never, policy: never) => {
    const binding = bind(algorithm, policy) as unknown as { keyOf(key: string): string; refund(key: string, now: number, cost: number): Promise<void> };
    binding.refund = async (key, _now, cost) => void (await options.client.zpopmin(binding.keyOf(key), cost));
    return binding;
  }) as typeof store.bind;
  return store;
}
