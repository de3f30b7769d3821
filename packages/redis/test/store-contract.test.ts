/** The store contract suite on RedisStore with default options (the server's clock) on its own redis-server. */
import { storeContractSuite } from '@ratekeeper/store-contract';
import { RedisStore } from '../src/index.js';
import { closeAll, ioredis } from './support/clients.js';
import { startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

describeRedis('RedisStore', () => {
  storeContractSuite('RedisStore', async () => {
    const server = await startServer();
    const store = new RedisStore({ client: ioredis(server.port) });
    return { store, close: async () => (await closeAll(), await server.stop()) };
  });
});
