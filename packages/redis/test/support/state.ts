/**
 * readState reads a limiter key's state as the scripts store it: little-endian doubles (one for a
 * token bucket, two for a fixed window, three for a sliding window), without the tail a decision
 * writes after it (the key's recorded expiry, see `untail` in src/lua/prelude.ts); undefined for a
 * missing key. recordedExpiry reads that tail: the expiry in server ms, or undefined without one.
 */
import type { Redis } from 'ioredis';

const TAIL = 9;
const tailed = (raw: Buffer) => raw.length > 16 && raw.length % 8 === 1 && raw[raw.length - 1] === 0x65;

export async function readState(redis: Redis, key: string): Promise<number[] | undefined> {
  const raw = await redis.getBuffer(key);
  if (raw === null) return undefined;
  const doubles = (tailed(raw) ? raw.length - TAIL : raw.length) / 8;
  return Array.from({ length: doubles }, (_, i) => raw.readDoubleLE(8 * i));
}

export async function recordedExpiry(redis: Redis, key: string): Promise<number | undefined> {
  const raw = await redis.getBuffer(key);
  return raw !== null && tailed(raw) ? raw.readDoubleLE(raw.length - TAIL) : undefined;
}
