// The RedisStore row the SQL stores' sections print beside their own: a private redis-server (see
// ../redis/_server.mjs) and an ioredis client, RedisStore with default options, so that a reader of
// the PostgreSQL or MySQL table sees what the same decisions cost on Redis in the same run.
import { RedisStore } from '@ratekeeper/redis';
import Redis from 'ioredis';
import { startRedis } from '../redis/_server.mjs';

/** redisRow starts the server and answers { store, close() }. */
export async function redisRow() {
  const server = await startRedis();
  const client = new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: false });
  const store = new RedisStore({ client });
  return {
    store,
    close: () => {
      client.disconnect();
      server.stop();
    },
  };
}
