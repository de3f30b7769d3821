/** The store contract suite on the MemoryStore (core's source, as the suite's limiters are: see vitest.config.ts). */
import { storeContractSuite } from '../../store-contract/src/index.js';
import { MemoryStore } from '../src/index.js';

storeContractSuite('MemoryStore', async () => ({ store: new MemoryStore() }));
