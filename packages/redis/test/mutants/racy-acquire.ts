/**
 * MUTANT. A lease acquire done from the client in separate commands (drop expired, count, then add):
 * between a count and its add, other processes count the same free places, so concurrent acquires
 * over-admit. test/concurrency.test.ts's exactness check must catch it.
 */
import type { Redis } from 'ioredis';

let sequence = 0;

/** racyAcquire takes one lease on `redisKey` if fewer than `limit` are held, in three round trips. */
export async function racyAcquire(client: Redis, redisKey: string, limit: number, ttlMs: number): Promise<boolean> {
  const [seconds, micros] = (await client.time()) as unknown as [string, string];
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  await client.zremrangebyscore(redisKey, '-inf', now);
  const held = await client.zcard(redisKey);
  if (held >= limit) return false;
  await client.zadd(redisKey, now + ttlMs, `racy:${sequence++}`);
  return true;
}
