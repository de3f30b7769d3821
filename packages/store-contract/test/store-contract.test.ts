/**
 * The suite on a store that keeps the contract, answering synchronously and with promises (a
 * MemoryStore behind bindings of its own, so composites go through consumeAll): every clause passes.
 */
import { storeContractSuite } from '../src/index.js';
import { wrapped } from './support/wrapped.js';

storeContractSuite('a delegating store, sync', async () => ({ store: wrapped('sync') }));
storeContractSuite('a delegating store, async', async () => ({ store: wrapped('async') }));
storeContractSuite('a store without consumeAll that says so', async () => ({ store: wrapped('async', 'no-consume-all') }), { capabilities: { composite: false } });
