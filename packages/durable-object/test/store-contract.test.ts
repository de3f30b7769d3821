/**
 * The store contract suite on DurableObjectStore with default options (the object's clock), in Node:
 * its namespace runs the object's own KeyRows, one per object name, each batch structured-cloned as an
 * RPC would (./support/rows-namespace.ts). workerd itself (RPC, storage, isolates) is exercised by the
 * other files here, not this one.
 * Concurrency leases are refused by this store, by name (durable-object-store.ts). The differential
 * runs here too, on a store with `time: 'client'` over such a namespace, calls in flight together in
 * one batch; its mutant spreads a key over objects. The burst needs workerd's isolates: it runs in
 * ./store-contract-workerd.test.ts.
 */
import { storeContractSuite } from '@ratekeeper/store-contract';
import { DurableObjectStore } from '../src/durable-object-store.js';
import { splitKeyNamespace } from './mutants/split-key.js';
import { rowsNamespace } from './support/rows-namespace.js';

/** The contract store's namespace, which `another` shares as a second Worker would. */
const shared = rowsNamespace();

storeContractSuite('DurableObjectStore (its KeyRows in Node)', async () => ({ store: new DurableObjectStore({ namespace: shared }) }), {
  capabilities: { concurrency: false },
  another: () => new DurableObjectStore({ namespace: shared }),
  differential: {
    store: (mutant?: 'split-key') => {
      const namespace = rowsNamespace();
      return new DurableObjectStore({ namespace: mutant === 'split-key' ? splitKeyNamespace(namespace) : namespace, time: 'client' });
    },
    batches: true,
    mutants: [{ what: 'a key spread over objects', mutant: 'split-key', history: 'rates' }],
  },
  burst: { skip: 'it needs workerd: ./store-contract-workerd.test.ts runs it on 4 isolates' },
});
