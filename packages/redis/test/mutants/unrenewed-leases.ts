/**
 * MUTANT. A RedisStore whose concurrency leases are never renewed: a request that runs longer than
 * leaseTtlMs loses its lease, and another request is admitted in its place while it still runs. The
 * renewal test in test/concurrency.test.ts must catch it.
 */
import type { RedisStoreOptions } from '../../src/index.js';
import { RedisStore } from '../../src/index.js';

export function unrenewedStore(options: RedisStoreOptions): RedisStore {
  const store = new RedisStore(options);
  const bind = store.bind.bind(store);
  store.bind = ((algorithm: never, policy: never) => {
    const binding = bind(algorithm, policy) as unknown as { renew(): void };
    binding.renew = () => {};
    return binding;
  }) as typeof store.bind;
  return store;
}
