// One process of bench sqlite/processes: a SqliteStore (default options) on the shared file, a token
// bucket with a quota of a billion, and decisions back to back from `startAt` (epoch ms, so that every
// process starts together) for `ms`, on the hot key or on a key of its own. Prints { decisions, failed }.
import { TokenBucketLimiter } from '@ratekeeper/core';
import { SqliteStore } from '@ratekeeper/sqlite';

const [path, startAt, ms, keyMode] = process.argv.slice(2);
const store = new SqliteStore({ path });
const limiter = new TokenBucketLimiter({ capacity: 1_000_000_000, refillPerSecond: 1, store, name: 'bench' });
const key = keyMode === 'own' ? `own-${process.pid}` : 'hot';
limiter.peek(key);
while (Date.now() < Number(startAt));
const end = performance.now() + Number(ms);
let decisions = 0;
let failed = 0;
while (performance.now() < end) {
  const d = limiter.consume(key);
  decisions++;
  if (d.failure !== undefined) failed++;
}
store.close();
console.log(JSON.stringify({ decisions, failed }));
