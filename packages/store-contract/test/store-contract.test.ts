/**
 * The suite on a store that keeps the contract, answering synchronously and with promises (a
 * MemoryStore behind bindings of its own, so composites go through consumeAll): every clause passes,
 * the differential (the store decides at the limiters' clock, as a client-time store does) and the
 * burst (in this process: ./support/burst.ts) included.
 */
import { storeContractSuite } from '../src/index.js';
import { inProcessBurst } from './support/burst.js';
import { wrapped } from './support/wrapped.js';

const burst = { workers: 4, requests: 300, run: inProcessBurst.bind(null, wrapped('async')) };

storeContractSuite('a delegating store, sync', async () => ({ store: wrapped('sync') }), { differential: { store: () => wrapped('sync'), runs: 15 }, burst });
storeContractSuite('a delegating store, async', async () => ({ store: wrapped('async') }), { differential: { store: () => wrapped('async'), runs: 15 }, burst });
storeContractSuite('a store without consumeAll that says so', async () => ({ store: wrapped('async', 'no-consume-all') }), {
  capabilities: { composite: false },
  differential: { store: () => wrapped('async', 'no-consume-all'), runs: 10 },
  burst: { ...burst, run: inProcessBurst.bind(null, wrapped('async', 'no-consume-all')) },
});
