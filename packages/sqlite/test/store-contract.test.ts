/** The store contract suite on SqliteStore with default options, on a file in a temporary directory. */
import { storeContractSuite } from '@ratekeeper/store-contract';
import { SqliteStore } from '../src/index.js';
import { tempDir } from './support/files.js';

storeContractSuite('SqliteStore', async () => {
  const dir = tempDir();
  const store = new SqliteStore({ path: dir.file() });
  return { store, close: async () => (store.close(), dir.remove()) };
});
