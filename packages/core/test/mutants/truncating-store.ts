/**
 * MUTANTS of the memory store's key handling, on the common table frame:
 * - `TruncatingStore` bounds memory per key by keeping only a key's first 64 characters: two long keys
 *   with one prefix (two API keys of one tenant, a header padded by an attacker) share one bucket.
 * - `VerbatimStore` keeps every key whole, as the memory store did before issue 7: memory per key grows
 *   with the key, and keys past 16,383 characters all share one hash in V8.
 */
import type { Algorithm, Policy, Store } from '../../src/index.js';
import { TableBinding } from './table-binding.js';

function mapStore(name: string, keyOf: (key: string) => string): new () => Store<'sync'> {
  return class implements Store<'sync'> {
    readonly mode = 'sync';
    readonly name = name;
    bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): TableBinding {
      const table = new Map<string, Float64Array>();
      return new TableBinding(algorithm as Algorithm<Policy>, policy, {
        get: (key) => table.get(keyOf(key)),
        set: (key, state) => void table.set(keyOf(key), state),
        delete: (key) => void table.delete(keyOf(key)),
      });
    }
  };
}

export const TruncatingStore = mapStore('truncating', (key) => key.slice(0, 64));
export const VerbatimStore = mapStore('verbatim', (key) => key);
