// One contender of the heap section, in its own process (started by ../heap.mjs with --expose-gc):
// `--contender=tokenBucket [--keys=1000000]`.
//
// Method: make the keys first and keep them (they are the caller's strings, not the limiter's cost);
// full GC; baseline. Then build the contender (sized to hold every key: ratekeeper's maxKeys, the
// @fastify LRU's cache), decide once for every key through its allowed path (awaiting in batches for
// the promise-based peers), full GC, and measure again. Bytes per key = (after − baseline) / keys, for
// the V8 heap (heapUsed) and for ArrayBuffer memory outside it (process.memoryUsage().arrayBuffers,
// where ratekeeper keeps its Float64Array of states): both are the contender's memory, so the total is
// what is compared. The contender's own count of held keys must equal the number of keys, or the run
// fails: a store that evicted or never stored keys would look cheap for the wrong reason.
//
// Prints one JSON line: { id, keys, held, heapBytes, arrayBufferBytes }.
import { flags, intFlag } from './args.mjs';
import { contenders, operations } from './contenders.mjs';
import { makeKeys } from './keys.mjs';
import { checkCount, compileLoop } from './loops.mjs';
import { settle } from './settle.mjs';

const f = flags(process.argv.slice(2));
const ID = f.contender;
const KEYS = intFlag(f, 'keys', 1_000_000);
const contender = contenders[ID];
const row = operations.find((o) => o.contender === ID && o.expect === 'allowed');
if (contender === undefined || row === undefined) throw new Error(`heap-child: unknown contender ${ID}`);
if (typeof globalThis.gc !== 'function') throw new Error('heap-child: run with --expose-gc');

const keys = makeKeys(KEYS);
const loop = compileLoop(row);
const before = await settle();
const instance = contender.create({ maxKeys: KEYS });
checkCount(row, KEYS, await loop(instance, keys, KEYS, 0));
const after = await settle();
const held = contender.size(instance);
if (held !== KEYS) throw new Error(`heap-child: ${ID} holds ${held} keys of ${KEYS}`);

process.stdout.write(
  `${JSON.stringify({
    id: ID,
    keys: KEYS,
    held,
    heapBytes: after.heapUsed - before.heapUsed,
    arrayBufferBytes: after.arrayBuffers - before.arrayBuffers,
  })}\n`,
);
process.exit(0); // rate-limiter-flexible keeps one unref'd timer per key
