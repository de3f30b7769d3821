// One measurement of the attack-memory section, in its own process (--expose-gc):
// `--mode=cost|heap --length=L --keys=N [--budget-ms=M] [--core=path]`. Key i is a fresh string each call: an
// IPv4-like key when L is 0, else L characters (a shared prefix and the index) flattened into one
// string of its own, as a key read from a request header is; the caller never keeps it.
// cost: insert N keys (one allow each), then decide all N again; µs per decision for each pass, and
//   µs to make a key alone. The
//   insert pass stops at the time budget (checked every 256 keys) and reports how many it inserted.
// heap: full GC, baseline; insert N keys; full GC; the growth of the V8 heap and ArrayBuffers.
// Prints one JSON line.
import { pathToFileURL } from 'node:url';
import { flags, intFlag } from './args.mjs';
import { ipv4Key } from './keys.mjs';
import { settle } from './settle.mjs';

const f = flags(process.argv.slice(2));
// --core=path/to/index.js measures another build of core (an older commit's, for a before/after).
const { MemoryStore, TokenBucketLimiter } = await import(f.core === undefined ? '@ratekeeper/core' : pathToFileURL(f.core).href);
const LENGTH = Number(f.length ?? 0);
const KEYS = intFlag(f, 'keys', 100_000);
const BUDGET = intFlag(f, 'budget-ms', 15_000);
const prefix = LENGTH === 0 ? '' : 'k'.repeat(LENGTH - 10);
const keyOf = LENGTH === 0 ? (i) => ipv4Key(i) : (i) => flat(prefix + String(1_000_000_000 + i));

/** flat makes V8 flatten the rope `s` in place (as a string read from a request is): one copy of its characters. */
function flat(s) {
  s.charCodeAt(0);
  return s;
}

const limiter = new TokenBucketLimiter({ capacity: 1_000_000_000, refillPerSecond: 1, store: new MemoryStore() });
if (f.mode === 'heap') {
  const before = await settle();
  for (let i = 0; i < KEYS; i++) if (!limiter.allow(keyOf(i))) throw new Error('denied');
  const after = await settle();
  if (limiter.binding.size !== KEYS) throw new Error(`holds ${limiter.binding.size} of ${KEYS}`);
  console.log(JSON.stringify({ keys: KEYS, heapBytes: after.heapUsed - before.heapUsed, arrayBufferBytes: after.arrayBuffers - before.arrayBuffers }));
} else {
  await settle();
  let inserted = 0;
  let stopped = false;
  const t0 = performance.now();
  for (; inserted < KEYS; inserted++) {
    if ((inserted & 255) === 0 && performance.now() - t0 > BUDGET) {
      stopped = true;
      break;
    }
    if (!limiter.allow(keyOf(inserted))) throw new Error('denied');
  }
  const insertUs = ((performance.now() - t0) * 1000) / inserted;
  let lookupUs = null;
  if (!stopped) {
    const t1 = performance.now();
    for (let i = 0; i < KEYS; i++) if (!limiter.allow(keyOf(i))) throw new Error('denied');
    lookupUs = ((performance.now() - t1) * 1000) / KEYS;
  }
  // What making the key alone costs (the caller's share of each figure above: a fresh 16 KB string).
  let made = 0;
  const t2 = performance.now();
  for (let i = 0; i < inserted; i++) made += keyOf(i).length;
  const keyUs = ((performance.now() - t2) * 1000) / inserted;
  if (made === 0) throw new Error('no keys');
  console.log(JSON.stringify({ inserted, stopped, insertUs, lookupUs, keyUs }));
}
process.exit(0);
