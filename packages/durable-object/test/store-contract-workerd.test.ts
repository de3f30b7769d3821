/**
 * The store contract suite on DurableObjectStore with default options, its objects in workerd: the
 * real RateLimiterObject class (dist's, bundled as wrangler bundles it: ./support/harness.ts) runs in
 * Miniflare's workerd with its storage, and the store calls it from Node through Miniflare's binding
 * of the namespace, each batch an RPC into the object, as a Worker's store would make it. So the
 * object's clock is workerd's, its state is what it stored, and every clause of the contract holds
 * across the RPC boundary. (./store-contract.test.ts runs the same suite on the object's Engine in
 * Node; concurrency leases are refused by this store, by name.)
 */
import { storeContractSuite } from '@ratekeeper/store-contract';
import { Miniflare } from 'miniflare';
import { DurableObjectStore } from '../src/durable-object-store.js';
import type { LimiterNamespace } from '../src/index.js';
import { bundle } from './support/harness.js';

storeContractSuite(
  'DurableObjectStore (its objects in workerd)',
  async () => {
    const script = await bundle();
    const mf = new Miniflare({
      compatibilityDate: '2025-07-01',
      workers: [{ name: 'objects', modules: true, script, compatibilityDate: '2025-07-01', durableObjects: { LIMITS: 'RateLimiterObject' } }],
    });
    await mf.ready;
    const namespace = (await mf.getDurableObjectNamespace('LIMITS', 'objects')) as unknown as LimiterNamespace;
    return { store: new DurableObjectStore({ namespace }), close: () => mf.dispose() };
  },
  { capabilities: { concurrency: false } },
);
