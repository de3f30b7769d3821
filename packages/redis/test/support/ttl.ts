/**
 * immortalKeys lists the keys matching `pattern` that have no TTL (PTTL -1), by SCAN: after every
 * test the store's namespace must hold none, since a key without a TTL is a leak that never heals.
 */
import type { Redis } from 'ioredis';

export async function immortalKeys(client: Redis, pattern = '*'): Promise<string[]> {
  const immortal: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) if ((await client.pttl(key)) === -1) immortal.push(key);
  } while (cursor !== '0');
  return immortal;
}
