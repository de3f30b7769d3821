/**
 * A namespace whose objects are the object's own KeyRows, one per object name, in this process (Node,
 * or a Worker's isolate): each batch and its reply structured-cloned, as an RPC would, at Date.now().
 * No storage, no workerd: the store contract in Node, the failure warning's answering store, and the
 * isolate-memory mutant (../mutants/isolate-memory.ts) run on it.
 */
import { KeyRows } from '../../src/key-rows.js';
import type { Batch, LimiterNamespace } from '../../src/index.js';

export function rowsNamespace(objects = new Map<string, KeyRows>()): LimiterNamespace {
  const get = (name: string) => ({
    run: async (batch: Batch) => {
      let rows = objects.get(name);
      if (rows === undefined) objects.set(name, (rows = new KeyRows(new Map(), Date.now())));
      return structuredClone(rows.run(structuredClone(batch), Date.now()));
    },
  });
  return { idFromName: (name: string) => name, get: get as LimiterNamespace['get'] };
}
