/**
 * Bookings on SqliteStore from four processes at once: the shared checks (@ratekeeper/store-contract's
 * bookingQueueChecks), four stores on four connections to one file standing for four processes, and
 * this package's mutants 'ledger-unsaved' (a booking that ignores those ahead) and
 * 'cancel-after-instant'.
 */
import { bookingQueueChecks } from '@ratekeeper/store-contract';
import { afterAll } from 'vitest';
import { SqliteStore } from '../src/index.js';
import { tempDir } from './support/files.js';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';

const dir = tempDir();
const opened: SqliteStore[] = [];

afterAll(() => {
  for (const store of opened) store.close();
  dir.remove();
});

bookingQueueChecks<MutantName>({
  stores: async (mutant) => {
    const Made = mutant === undefined ? SqliteStore : ((await import(mutantBuild(mutant))) as { SqliteStore: typeof SqliteStore }).SqliteStore;
    const path = dir.file();
    return () => {
      const store = new Made({ path });
      opened.push(store);
      return store;
    };
  },
  mutants: [['a booking that does not keep its ledger', 'ledger-unsaved']],
  cancelAfterInstant: 'cancel-after-instant',
});
