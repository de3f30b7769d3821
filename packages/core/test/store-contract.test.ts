/**
 * The store contract suite on the MemoryStore (core's source, as the suite's limiters are: see
 * vitest.config.ts). The memory store is the differential's reference model itself (core's own
 * property tests hold it to the pure steps: memory-store*.test.ts), and a store of one process has no
 * burst from several processes to keep exact: both clauses are skipped, by name.
 */
import { storeContractSuite } from '../../store-contract/src/index.js';
import { MemoryStore } from '../src/index.js';

storeContractSuite('MemoryStore', async () => ({ store: new MemoryStore() }), {
  differential: { skip: 'the memory store is the reference model (core/test/memory-store*.test.ts hold it to the pure steps)' },
  burst: { skip: 'a store of one process: no other process shares its state' },
});
