// One row of the micro benchmark, measured in its own process (started by ../micro.mjs with
// --expose-gc) beside the naive reference bucket: `--row=tokenBucket.allow`.
//
// Why a process per row: with every contender in one process, the peers' garbage (promises, result
// objects, per-key timers) kept the old generation's marking and sweeping busy during everyone else's
// samples, and ratekeeper's shared call sites saw every limiter class at once; the ratios of the
// allocation-free rows swung by ±100 % between rounds on the 2-core machine, against a few percent
// with one contender per process. Each row's figures also do not depend on which other rows ran.
//
// Jobs: the row and the naive bucket, each on both key sets (one hot key; KEYS keys round-robin), each
// with a fresh instance and a freshly compiled loop. All four are warmed up before any is timed (the
// first pass inserts every key; the following ones reach optimised code); then a full GC clears the
// set-up garbage, so that no marking or sweeping left over from it runs during the measurement.
//
// Pairs: the measurement is ROUNDS rounds of CHUNKS pairs per key set. A pair is one chunk of the
// naive bucket and one of the row, back to back, deciding the same keys (same start, same count:
// about CHUNK_US of the naive bucket's work); each chunk is timed on its own, and the pair's quotient
// is one ratio sample. This machine's speed drifts by tens of percent within a second (other
// processes on its two cores; a host that time-shares them) and bursts stall single chunks; the two
// halves of a pair are a fraction of a millisecond apart, so they see the same machine, and a median
// over hundreds of pairs ignores the pairs that a burst hit.
//   Same keys, because over 100,000 keys the cost of a decision depends on where in the key set it
// falls (memory layout): pairs that walked different stretches disagreed by 2× either way. But then
// the second chunk of a pair finds the key strings in cache (the first paid the misses), so the order
// alternates from pair to pair, and the reported ratio is the geometric mean of the median ratio of
// the naive-first pairs and that of the row-first pairs, which cancels the order's factor.
//   Successive pairs go on through the key set, so every key is decided about equally often. Before
// each round a minor GC empties the young generation, so that each round starts alike.
//
// Prints one JSON line: { id, hot: { n, pairs: [[rowNsPerOp, naiveNsPerOp, naiveFirst], …] }, spread: … }.
// Usage: node --expose-gc micro-child.mjs --row=ID [--rounds=21] [--chunks=16] [--chunk-us=250] [--keys=100000]
import { flags, intFlag } from './args.mjs';
import { contenders, operation } from './contenders.mjs';
import { ipv4Key, makeKeys } from './keys.mjs';
import { BATCH, checkCount, compileLoop } from './loops.mjs';

const f = flags(process.argv.slice(2));
const ROW = operation(f.row ?? 'missing --row');
const NAIVE = operation('naive.allow');
const ROUNDS = intFlag(f, 'rounds', 21);
const CHUNKS = 2 * Math.ceil(intFlag(f, 'chunks', 16) / 2); // even: each order equally often
const CHUNK_US = intFlag(f, 'chunk-us', 250);
const KEYS = intFlag(f, 'keys', 100_000);
const minorGc = typeof globalThis.gc === 'function' ? () => globalThis.gc({ type: 'minor' }) : () => {};

/** chunk times `n` decisions of one job from keys[start], checks them, and returns the nanoseconds they took. */
async function chunk(job, n, start = 0) {
  const t0 = process.hrtime.bigint();
  const allowed = await job.loop(job.instance, job.keys, n, start);
  const ns = Number(process.hrtime.bigint() - t0);
  checkCount(job.row, n, allowed);
  return ns;
}

/** prepare builds and warms up one (row, key set) job and notes the fastest ns/op it showed. */
async function prepare(row, keys) {
  const instance = contenders[row.contender].create({ maxKeys: KEYS });
  if (row.prepare) await row.prepare(instance, keys);
  const job = { row, keys, instance, loop: compileLoop(row) };
  const pass = Math.ceil(Math.max(keys.length, 100_000) / BATCH) * BATCH;
  await chunk(job, pass);
  await chunk(job, pass);
  job.perOp = Infinity; // the fastest of a few chunks: a burst only ever makes a chunk slower
  for (let i = 0; i < 5; i++) job.perOp = Math.min(job.perOp, (await chunk(job, 10 * BATCH)) / (10 * BATCH));
  return job;
}

/** pairSize is the decisions per chunk: about CHUNK_US of the naive bucket, whole batches for async rows. */
function pairSize(ref, job) {
  const n = Math.max(1, Math.round((CHUNK_US * 1e3) / ref.perOp));
  return job.row.kind === 'async' ? Math.max(1, Math.round(n / BATCH)) * BATCH : n;
}

/** round times CHUNKS pairs on one key set and appends [rowNsPerOp, naiveNsPerOp, naiveFirst] to `into`. */
async function round(s, into) {
  minorGc();
  for (let c = 0; c < CHUNKS; c++) {
    const naiveFirst = c % 2 === 0;
    const start = s.next;
    s.next = (s.next + s.n) % s.job.keys.length;
    const first = await chunk(naiveFirst ? s.ref : s.job, s.n, start);
    const second = await chunk(naiveFirst ? s.job : s.ref, s.n, start);
    const [row, naive] = naiveFirst ? [second, first] : [first, second];
    into?.push([row / s.n, naive / s.n, naiveFirst]);
  }
}

const keySets = { hot: [ipv4Key(KEYS)], spread: makeKeys(KEYS) };
const sets = {};
for (const [set, keys] of Object.entries(keySets)) {
  const job = await prepare(ROW, keys);
  const ref = await prepare(NAIVE, keys);
  sets[set] = { job, ref, n: pairSize(ref, job), next: 0, pairs: [] };
}
globalThis.gc?.();
for (const s of Object.values(sets)) await round(s); // discarded: the first chunks after a full GC run on cold caches
for (let r = 0; r < ROUNDS; r++) for (const s of Object.values(sets)) await round(s, s.pairs);

const summary = (s) => ({ n: s.n, pairs: s.pairs });
process.stdout.write(`${JSON.stringify({ id: ROW.id, hot: summary(sets.hot), spread: summary(sets.spread) })}\n`);
process.exit(0); // the peers' stores keep unref'd timers; nothing else is pending
