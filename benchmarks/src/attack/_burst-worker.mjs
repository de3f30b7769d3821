// One process of the burst scenario (see burst.mjs): a TokenBucketLimiter on a RedisStore with DEFAULT
// options and its own connection. On 'go' it fires all its consume calls at once and reports how many
// were admitted and how many were decided by the store's failure policy instead of by Redis.
import { TokenBucketLimiter } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
import { createClient } from 'redis';

let limiter;
let close = () => {};
let setup;

async function connect(kind, port) {
  if (kind === 'ioredis') {
    const client = new Redis({ port, host: '127.0.0.1' });
    await client.ping();
    close = () => client.disconnect();
    return client;
  }
  const client = createClient({ socket: { port, host: '127.0.0.1' } });
  client.on('error', () => {});
  await client.connect();
  close = () => client.destroy();
  return client;
}

process.on('message', async (message) => {
  try {
    if (message.type === 'setup') {
      setup = message;
      const store = new RedisStore({ client: await connect(message.client, message.port) });
      limiter = new TokenBucketLimiter({ capacity: message.limit, refillPerSecond: 1e-6, store });
      await limiter.consume(`warm-${process.pid}`);
      process.send({ type: 'ready' });
    } else if (message.type === 'go') {
      const decisions = await Promise.all(Array.from({ length: setup.requests }, () => limiter.consume(setup.key)));
      const admitted = decisions.filter((d) => d.allowed).length;
      const byPolicy = decisions.filter((d) => d.failure !== undefined).length;
      process.send({ type: 'done', admitted, byPolicy });
    } else if (message.type === 'exit') {
      close();
      process.exit(0);
    }
  } catch (error) {
    process.send({ type: 'error', message: String(error?.stack ?? error) });
  }
});
process.on('disconnect', () => process.exit(0));
