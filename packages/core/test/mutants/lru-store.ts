/**
 * MUTANT. A bounded store that evicts the least recently used key when full (an LRU cache, as
 * @fastify/rate-limit's local store does). A blocked client that waits quietly becomes the least
 * recently used key, so a flood of fresh keys resets it: eviction becomes an attacker's reset button.
 */
import type { Algorithm, Policy, Store } from '../../src/index.js';
import { TableBinding } from './table-binding.js';

export class LruStore implements Store<'sync'> {
  readonly mode = 'sync';
  readonly #maxKeys: number;

  constructor(maxKeys: number) {
    this.#maxKeys = maxKeys;
  }

  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): TableBinding {
    const table = new Map<string, Float64Array>();
    return new TableBinding(algorithm as Algorithm<Policy>, policy, {
      get: (key) => table.get(key),
      set: (key, state) => {
        table.delete(key);
        if (table.size >= this.#maxKeys) table.delete(table.keys().next().value as string);
        table.set(key, state);
      },
      delete: (key) => table.delete(key),
    });
  }
}
