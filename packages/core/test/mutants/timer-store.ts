/**
 * MUTANT. A store that expires each key with its own setTimeout (rate-limiter-flexible#238 class): one
 * live timer handle per key, so the process holds handles in proportion to its clients. `close()`
 * clears every timer so the test that uses it leaves nothing behind.
 */
import type { Algorithm, Policy, Store } from '../../src/index.js';
import { TableBinding } from './table-binding.js';

export class TimerStore implements Store<'sync'> {
  readonly mode = 'sync';
  readonly #timers = new Set<NodeJS.Timeout>();

  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): TableBinding {
    const table = new Map<string, { state: Float64Array; timer: NodeJS.Timeout }>();
    const drop = (key: string) => {
      const entry = table.get(key);
      if (entry === undefined) return;
      clearTimeout(entry.timer);
      this.#timers.delete(entry.timer);
      table.delete(key);
    };
    return new TableBinding(algorithm as Algorithm<Policy>, policy, {
      get: (key) => table.get(key)?.state,
      set: (key, state, ttlMs) => {
        drop(key);
        const timer = setTimeout(() => drop(key), Math.min(ttlMs, 2 ** 31 - 1));
        this.#timers.add(timer);
        table.set(key, { state, timer });
      },
      delete: drop,
    });
  }

  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
