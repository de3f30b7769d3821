/**
 * Mutant: a store that spreads a hot key over several objects (a "shard" suffix per RPC, in turn, counted per isolate),
 * as one might to serve more requests per second. Each shard then holds the whole limit. The
 * exactness test's check must catch it.
 */
import type { LimiterNamespace } from '../../src/index.js';

let next = 0;

export function splitKeyNamespace(real: LimiterNamespace, shards = 4): LimiterNamespace {
  return {
    idFromName: (name: string) => real.idFromName(`${name}#${next++ % shards}`),
    get: real.get.bind(real),
  };
}
