// Section "attack-memory": the default MemoryStore under the two floods of issue 7.
// 1. Key flood: per algorithm (limit 5), block `login:victim`, then send one request from each of
//    100,000 fresh keys at the same instant, and print the victim's state: it must still be blocked.
// 2. Hostile keys: µs per decision while 100,000 distinct keys are inserted and then decided again,
//    for short IPv4-like keys, 16,000-character keys (the heap bound) and 20,000-character keys (past
//    the 16,383 characters V8 hashes, so every such key has the same hash). Each run is in its own
//    process with a time budget: a run that exceeds it stops and reports how far it got.
// 3. Heap per key: bytes the store retains per 16,000-character key (and per short key), after a full
//    GC, with the keys made on the fly so that the caller keeps none of them.
//
// Run: `pnpm --filter @ratekeeper/benchmarks bench attack-memory` (after `pnpm build`), or
// `node benchmarks/src/attack-memory.mjs`. Flags: --attack-keys=N (100000), --attack-budget-ms=M (15000),
// --attack-core=path/to/dist/esm/index.js (measure another build of core, e.g. an older commit's).
import { pathToFileURL } from 'node:url';
import { flags, intFlag } from '../lib/args.mjs';
import { runChild } from '../lib/child.mjs';
import { ipv4Key } from '../lib/keys.mjs';
import { fixed, formatTable, grouped } from '../lib/table.mjs';

/** limiters are the three algorithms at limit 5, each on a default MemoryStore of `core`. */
function limiters(core) {
  return {
    'token bucket (5, 1/s)': (clock) => new core.TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock }),
    'sliding window (5 / 60 s)': (clock) => new core.SlidingWindowLimiter({ limit: 5, windowMs: 60_000, clock }),
    'fixed window (5 / 60 s)': (clock) => new core.FixedWindowLimiter({ limit: 5, windowMs: 60_000, clock }),
  };
}

/** flood blocks a victim, floods `keys` fresh keys at the same instant, and reports the victim. */
function flood(core, create, keys) {
  const clock = new core.ManualClock(1_700_000_040_000); // 40 s into a 60 s window
  const limiter = create(clock);
  while (limiter.allow('login:victim'));
  for (let i = 0; i < keys; i++) limiter.allow(ipv4Key(i));
  const d = limiter.peek('login:victim');
  return { allowed: d.allowed, remaining: d.remaining, evictions: limiter.binding.evictions };
}

export async function run(args) {
  const f = flags(args);
  const keys = intFlag(f, 'attack-keys', 100_000);
  const budget = intFlag(f, 'attack-budget-ms', 15_000);
  const other = f['attack-core'] === undefined ? [] : [`--core=${f['attack-core']}`];

  const core = await import(f['attack-core'] === undefined ? '@ratekeeper/core' : pathToFileURL(f['attack-core']).href);
  const floods = Object.entries(limiters(core)).map(([label, create]) => {
    const r = flood(core, create, keys);
    return [label, r.allowed ? 'ALLOWED (reset by the flood)' : 'still blocked', String(r.remaining), grouped(r.evictions)];
  });
  console.log(`key flood — default MemoryStore: block "login:victim", then ${grouped(keys)} fresh keys, one request each, same instant\n`);
  console.log(formatTable(['limiter', 'victim after the flood', 'victim remaining', 'live evictions'], floods));

  const costs = [];
  for (const length of [0, 16_000, 20_000]) {
    const child = ['--expose-gc', '--max-old-space-size=4096'];
    const r = await runChild('attack-memory-child.mjs', {
      nodeFlags: child,
      args: ['--mode=cost', `--length=${length}`, `--keys=${keys}`, `--budget-ms=${budget}`, ...other],
      timeoutMs: 4 * budget + 30_000,
    });
    costs.push([
      length === 0 ? 'short (IPv4-like)' : `${grouped(length)} chars`,
      `${grouped(r.inserted)} / ${grouped(keys)}`,
      fixed(r.insertUs, 2),
      r.lookupUs === null ? '—' : fixed(r.lookupUs, 2),
      fixed(r.keyUs, 2),
      r.stopped ? `stopped at the ${budget / 1000} s budget` : 'done',
    ]);
  }
  console.log(`\nhostile keys — µs per decision (allow, token bucket, default MemoryStore), fresh key strings each call\n`);
  console.log(formatTable(['keys', 'inserted', 'µs/decision inserting', 'µs/decision again', 'µs to make the key alone', 'run'], costs));

  const heap = [];
  for (const length of [0, 16_000]) {
    const r = await runChild('attack-memory-child.mjs', {
      nodeFlags: ['--expose-gc', '--max-old-space-size=4096'],
      args: ['--mode=heap', `--length=${length}`, '--keys=10000', ...other],
      timeoutMs: 120_000,
    });
    heap.push([length === 0 ? 'short (IPv4-like)' : `${grouped(length)} chars`, grouped(r.keys), fixed(r.heapBytes / r.keys, 1), fixed(r.arrayBufferBytes / r.keys, 1)]);
  }
  console.log('\nheap per key — the store alone (keys made on the fly, none kept by the caller), after full GCs\n');
  console.log(formatTable(['keys', 'held', 'V8 heap B/key', 'ArrayBuffer B/key'], heap));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run(process.argv.slice(2));
