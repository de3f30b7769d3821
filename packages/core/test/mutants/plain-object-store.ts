/**
 * MUTANT. A store keyed by `table[key]` on a plain object: "__proto__", "constructor", "toString" and
 * "hasOwnProperty" find Object.prototype's members instead of nothing, and writing "__proto__" swaps
 * the table's prototype (express-rate-limit's MemoryStore once had this shape).
 */
import type { Algorithm, Policy, Store } from '../../src/index.js';
import { TableBinding } from './table-binding.js';

export class PlainObjectStore implements Store<'sync'> {
  readonly mode = 'sync';

  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): TableBinding {
    const table: Record<string, Float64Array> = {};
    return new TableBinding(algorithm as Algorithm<Policy>, policy, {
      get: (key) => table[key],
      set: (key, state) => {
        table[key] = state;
      },
      delete: (key) => {
        delete table[key];
      },
    });
  }
}
