// One process of the burst scenarios (see burst.mjs): a TokenBucketLimiter (capacity 500) on a
// RedisStore with DEFAULT options and its own connection. 'setup' connects and makes the store's
// first call (a consume on the process's own key, or with `peek` a peek on another key: the cold call
// that connects, loads the script and learns Redis's clock); 'go' fires all its consume calls at once,
// optionally while busy (`busy.sliceMs`: CPU burnt in slices, one per turn of the event loop;
// `busy.handlerMs`: burnt per admitted request as its decision arrives); 'cold' does it all at once in
// a process that has just started, as a process of a rolling restart meets traffic already arriving.
// Each reports how many were admitted and how many were decided by the store's failure policy.
// `--attack-redis=<path to a @ratekeeper/redis build>` compares another build (say, main's).
import { TokenBucketLimiter } from '@ratekeeper/core';
import { Redis } from 'ioredis';
import { createClient } from 'redis';

let limiter;
let close = () => {};
let setup;

async function connect(kind, port, wait) {
  if (kind === 'ioredis') {
    const client = new Redis({ port, host: '127.0.0.1' });
    client.on('error', () => {});
    if (wait) await client.ping();
    close = () => client.disconnect();
    return client;
  }
  const client = createClient({ socket: { port, host: '127.0.0.1' } });
  client.on('error', () => {});
  const connecting = client.connect();
  if (wait) await connecting;
  else connecting.catch(() => {});
  close = () => client.destroy();
  return client;
}

async function build(message, wait) {
  setup = message;
  const { RedisStore } = await import(message.redis ?? '@ratekeeper/redis');
  const store = new RedisStore({ client: await connect(message.client, message.port, wait) });
  store.on('failure', () => {});
  limiter = new TokenBucketLimiter({ capacity: message.limit, refillPerSecond: 1e-6, store });
}

function burn(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

async function burst() {
  const busy = setup.busy ?? {};
  let spinning = (busy.sliceMs ?? 0) > 0;
  const spin = () => {
    if (!spinning) return;
    burn(busy.sliceMs);
    setImmediate(spin);
  };
  if (spinning) setImmediate(spin);
  const handled = (d) => {
    if (d.allowed && busy.handlerMs > 0) burn(busy.handlerMs);
    return d;
  };
  const decisions = await Promise.all(Array.from({ length: setup.requests }, () => limiter.consume(setup.key).then(handled)));
  spinning = false;
  const admitted = decisions.filter((d) => d.allowed).length;
  const byPolicy = decisions.filter((d) => d.failure !== undefined).length;
  process.send({ type: 'done', admitted, byPolicy });
}

process.on('message', async (message) => {
  try {
    if (message.type === 'setup') {
      await build(message, true);
      if (message.peek) await limiter.peek(`other-${process.pid}`);
      else await limiter.consume(`warm-${process.pid}`);
      process.send({ type: 'ready' });
    } else if (message.type === 'go') {
      await burst();
    } else if (message.type === 'cold') {
      await build(message, false);
      await burst();
    } else if (message.type === 'exit') {
      close();
      process.exit(0);
    }
  } catch (error) {
    process.send({ type: 'error', message: String(error?.stack ?? error) });
  }
});
process.on('disconnect', () => process.exit(0));
