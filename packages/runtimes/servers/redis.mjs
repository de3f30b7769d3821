// The `redis` scenario: a token bucket of 2 (refill 1/s) on @ratekeeper/redis through ioredis, on the
// scenario clock (time: 'client'), so the same exact figures hold as on the memory store.
import { TokenBucketLimiter } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';
import Redis from 'ioredis';

export async function redisScenario(port) {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  const store = new RedisStore({ client, time: 'client', prefix: `rk-runtime-${Date.now()}:` });
  return { redis: (clock) => ({ limiter: new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'r', clock, store }) }) };
}
