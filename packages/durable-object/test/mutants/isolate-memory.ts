/**
 * Mutant: a store that decides in the isolate's memory instead of in the object. Its namespace runs
 * the object's own engine in the calling isolate (one engine per object name, at module scope), so
 * within one isolate it is exactly the real store, and every isolate counts alone. The exactness
 * test's check (several isolates, one limit) must catch it.
 */
import { Engine } from '../../src/engine.js';
import type { LimiterNamespace } from '../../src/index.js';

const engines = new Map<string, Engine>();

export function isolateMemoryNamespace(): LimiterNamespace {
  return {
    idFromName: (name: string) => name,
    get: ((name: string) => ({
      run: async (batch) => {
        let engine = engines.get(name);
        if (engine === undefined) engines.set(name, (engine = new Engine(new Map(), Date.now())));
        return engine.run(batch, Date.now());
      },
    })) as LimiterNamespace['get'],
  };
}
