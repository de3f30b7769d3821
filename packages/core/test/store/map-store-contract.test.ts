/**
 * The store contract suite on core's row-store kit alone, in this process: a RowStore over rows kept in
 * a Map (./map-rows.ts), through BatchRunner and core's Remote, the calls in flight together in one
 * transaction; and the same with a one-statement plain call (its `decide`). Every capability the suite
 * knows (composites, refunds, bookings, bans, leases) is the kit's own code, here without a database,
 * held by the differential to the memory store call for call.
 */
import { storeContractSuite } from '../../../store-contract/src/index.js';
import { MapStore } from './map-rows.js';

for (const plain of [false, true]) {
  const make = () => {
    const store = new MapStore();
    store.knobs.plain = plain;
    return store;
  };
  storeContractSuite(`MapStore (core's row kit${plain ? ', a plain call as one statement' : ''})`, async () => ({ store: make() }), {
    differential: { store: async () => make(), batches: true, runs: 10 },
    burst: { skip: 'rows in one process: no other process shares them' },
  });
}
