// Section "heap": memory per key at 1,000,000 IPv4-like keys, for the naive reference bucket, each
// ratekeeper limiter on its MemoryStore and the peers' in-memory stores. Each contender is measured in
// its own fresh process (lib/heap-child.mjs has the method): baseline after a full GC with the keys
// already made and kept, then one decision per key, full GC, and the difference over the key count,
// on the V8 heap and in ArrayBuffers outside it.
//
// Flags: --heap-keys=N (1000000), --heap-only=id,id (contender ids, see lib/contenders.mjs).
import { flags } from './lib/args.mjs';
import { runChild } from './lib/child.mjs';
import { contenders } from './lib/contenders.mjs';
import { fixed, formatTable, grouped } from './lib/table.mjs';

const IDS = ['naive', 'tokenBucket', 'slidingWindow', 'fixedWindow', 'slidingLog', 'composite', 'expressRateLimit', 'fastifyRateLimit', 'rateLimiterFlexible'];

export async function run(args) {
  const f = flags(args);
  const only = f['heap-only']?.split(',');
  const passOn = f['heap-keys'] === undefined ? [] : [`--keys=${f['heap-keys']}`];
  const results = [];
  for (const id of IDS.filter((i) => only === undefined || only.includes(i))) {
    process.stderr.write(`heap: ${id}\n`);
    results.push(await runChild('heap-child.mjs', { nodeFlags: ['--expose-gc'], args: [`--contender=${id}`, ...passOn] }));
  }
  console.log(render(results));
}

function render(results) {
  const perKey = (r) => (r.heapBytes + r.arrayBufferBytes) / r.keys;
  const naive = results.find((r) => r.id === 'naive');
  const rows = results.map((r) => [
    contenders[r.id].label,
    grouped(r.held),
    fixed(r.heapBytes / r.keys, 1),
    fixed(r.arrayBufferBytes / r.keys, 1),
    fixed(perKey(r), 1),
    naive === undefined ? '—' : `${fixed(perKey(r) / perKey(naive), 2)}×`,
  ]);
  const keys = grouped(results[0]?.keys ?? 0);
  return [
    `heap — bytes per key held at ${keys} IPv4-like keys; each contender in its own process; key strings excluded (made before the baseline)`,
    '',
    formatTable(['contender', 'keys held', 'V8 heap B/key', 'ArrayBuffer B/key', 'total B/key', 'vs naive'], rows),
    '',
    'V8 heap: process.memoryUsage().heapUsed after − before, each after full GCs; ArrayBuffer: the same for .arrayBuffers (off-heap typed-array memory).',
  ].join('\n');
}
