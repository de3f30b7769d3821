/**
 * readState reads a limiter key's state as the scripts store it: little-endian doubles (one for a
 * token bucket, two for a fixed window, three for a sliding window); undefined for a missing key.
 */
import type { Redis } from 'ioredis';

export async function readState(redis: Redis, key: string): Promise<number[] | undefined> {
  const raw = await redis.getBuffer(key);
  if (raw === null) return undefined;
  return Array.from({ length: raw.length / 8 }, (_, i) => raw.readDoubleLE(8 * i));
}
