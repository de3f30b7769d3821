/**
 * The store contract suite on DurableObjectStore with default options, its objects in workerd: the
 * real RateLimiterObject class (bundled as wrangler bundles it: ./support/harness.ts) runs in
 * Miniflare's workerd with its storage, and the store calls it from Node through Miniflare's binding
 * of the namespace, each batch an RPC into the object. So the object's clock is workerd's, its state
 * is what it stored, and every clause of the contract holds across the RPC boundary. (The store runs
 * in Node here; ./store-contract.test.ts runs the same suite on the object's Engine in Node, and the
 * other files here run the store inside Workers. Concurrency leases are refused by this store, by name.)
 *
 * Miniflare's binding carries object names from Node to workerd as UTF-8, where a lone surrogate
 * becomes U+FFFD: through it, the keys "\ud800" and "\udbff" would name one object. workerd's own
 * idFromName keeps them apart (./differential.test.ts runs hostile keys in a Worker), so the namespace
 * below escapes such names, injectively, before they cross the binding: what is tested is the store
 * and the object, not the test's transport.
 */
import { storeContractSuite } from '@ratekeeper/store-contract';
import { Miniflare } from 'miniflare';
import { DurableObjectStore } from '../src/durable-object-store.js';
import type { LimiterNamespace } from '../src/index.js';
import { bundle } from './support/harness.js';

/** throughUtf8 is `name` itself when UTF-8 keeps it (well-formed UTF-16), else '#' and the hex of its code units (no name the tests use starts with '#'). */
function throughUtf8(name: string): string {
  if ((name as unknown as { isWellFormed(): boolean }).isWellFormed()) return name;
  let hex = '#';
  for (let i = 0; i < name.length; i++) hex += name.charCodeAt(i).toString(16).padStart(4, '0');
  return hex;
}

storeContractSuite(
  'DurableObjectStore (its objects in workerd)',
  async () => {
    const script = await bundle();
    const mf = new Miniflare({
      compatibilityDate: '2025-07-01',
      workers: [{ name: 'objects', modules: true, script, compatibilityDate: '2025-07-01', durableObjects: { LIMITS: 'RateLimiterObject' } }],
    });
    await mf.ready;
    const binding = (await mf.getDurableObjectNamespace('LIMITS', 'objects')) as unknown as LimiterNamespace;
    const namespace: LimiterNamespace = { idFromName: (name) => binding.idFromName(throughUtf8(name)), get: (id) => binding.get(id) };
    return { store: new DurableObjectStore({ namespace }), close: () => mf.dispose() };
  },
  { capabilities: { concurrency: false } },
);
