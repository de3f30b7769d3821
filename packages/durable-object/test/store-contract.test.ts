/**
 * The store contract suite on DurableObjectStore with default options (the object's clock), in Node:
 * its namespace runs the object's own Engine, one per object name, each batch structured-cloned as an
 * RPC would. workerd itself (RPC, storage, isolates) is exercised by the other files here, not this one.
 * Concurrency leases are refused by this store, by name (durable-object-store.ts). The differential
 * runs here too, on a store with `time: 'client'` over such a namespace, calls in flight together in
 * one batch; its mutant spreads a key over objects. The burst needs workerd's isolates: it runs in
 * ./store-contract-workerd.test.ts.
 */
import { storeContractSuite } from '@ratekeeper/store-contract';
import { DurableObjectStore } from '../src/durable-object-store.js';
import { Engine } from '../src/engine.js';
import type { Batch, LimiterNamespace } from '../src/index.js';
import { splitKeyNamespace } from './mutants/split-key.js';

function engineNamespace(): LimiterNamespace {
  const engines = new Map<string, Engine>();
  const get = (name: string) => ({
    run: async (batch: Batch) => {
      let engine = engines.get(name);
      if (engine === undefined) engines.set(name, (engine = new Engine(new Map(), Date.now())));
      return structuredClone(engine.run(structuredClone(batch), Date.now()));
    },
  });
  return { idFromName: (name: string) => name, get: get as LimiterNamespace['get'] };
}

storeContractSuite('DurableObjectStore (its Engine in Node)', async () => ({ store: new DurableObjectStore({ namespace: engineNamespace() }) }), {
  capabilities: { concurrency: false },
  differential: {
    store: (mutant?: 'split-key') => {
      const namespace = engineNamespace();
      return new DurableObjectStore({ namespace: mutant === 'split-key' ? splitKeyNamespace(namespace) : namespace, time: 'client' });
    },
    batches: true,
    mutants: [{ what: 'a key spread over objects', mutant: 'split-key', history: 'rates' }],
  },
  burst: { skip: 'it needs workerd: ./store-contract-workerd.test.ts runs it on 4 isolates' },
});
