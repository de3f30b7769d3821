// One row of the allocation section, in its own process (started by ../alloc.mjs with --expose-gc):
// `--row=tokenBucket.allow --clock=system|manual [--calls=10000000]`.
//
// Method: one hot key. The first call inserts it (allowed to allocate); a million more reach optimised
// code. Then, with the young generation emptied by a minor GC:
//   - bytes per call: V8's new-space usage before and after 10,000 calls (far less than a semi-space,
//     so no GC can run in between; if one does, the sample is taken again), less the same reading
//     around zero calls (reading the heap statistics allocates a little itself);
//   - GC events over `calls` calls, counted by a PerformanceObserver on 'gc' entries, by kind
//     (scavenge = minor, mark-compact = major, incremental marking), with heapUsed before and after.
// A call that allocates nothing triggers no GC however many times it runs: 0 scavenges over ten
// million calls is the proof, the bytes per call say how much when it is not 0.
//
// `--clock=manual` gives ratekeeper's limiters a ManualClock that never moves (its `now()` reads a
// field), which separates what the limiter allocates from what reading the system clock allocates.
//
// Prints one JSON line: { id, clock, calls, bytesPerCall, scavenges, majors, incrementals, heapBefore, heapAfter }.
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { ManualClock } from '@ratekeeper/core';
import { flags, intFlag } from './args.mjs';
import { contenders, operation } from './contenders.mjs';
import { ipv4Key } from './keys.mjs';
import { checkCount, compileLoop } from './loops.mjs';

const f = flags(process.argv.slice(2));
const ROW = operation(f.row ?? 'missing --row');
const CLOCK = f.clock ?? 'system';
const CALLS = intFlag(f, 'calls', 10_000_000);
const PROBE = 10_000;
if (ROW.kind !== 'sync') throw new Error('alloc-child: only synchronous rows (a promise per call allocates by construction)');
if (typeof globalThis.gc !== 'function') throw new Error('alloc-child: run with --expose-gc');

const clock = CLOCK === 'manual' ? new ManualClock(Date.now()) : undefined;
const instance = contenders[ROW.contender].create({ maxKeys: 1000, ...(clock === undefined ? {} : { clock }) });
const keys = [ipv4Key(0)];
const loop = compileLoop(ROW);
const run = (n) => {
  if (n > 0) checkCount(ROW, n, loop(instance, keys, n, 0));
};
const newSpaceUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_used_size;
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

const events = { scavenges: 0, majors: 0, incrementals: 0 };
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) events.scavenges++;
    else if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) events.majors++;
    else if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) events.incrementals++;
  }
});
observer.observe({ entryTypes: ['gc'] });
const total = () => events.scavenges + events.majors + events.incrementals;

run(1);
run(1_000_000);

/** grownBy is the new-space growth across `n` calls (the probe's own reading subtracted), or NaN if a GC ran. */
async function grownBy(n) {
  globalThis.gc({ type: 'minor' });
  await tick();
  const seen = total();
  const used = newSpaceUsed();
  run(n);
  const grown = newSpaceUsed() - used;
  await tick();
  return total() === seen ? grown : NaN;
}

let bytesPerCall = NaN;
for (let attempt = 0; attempt < 5 && Number.isNaN(bytesPerCall); attempt++) {
  bytesPerCall = ((await grownBy(PROBE)) - (await grownBy(0))) / PROBE;
}

globalThis.gc();
await tick();
Object.assign(events, { scavenges: 0, majors: 0, incrementals: 0 });
const heapBefore = process.memoryUsage().heapUsed;
run(CALLS);
const heapAfter = process.memoryUsage().heapUsed;
await tick(); // observer callbacks are delivered asynchronously
observer.disconnect();

process.stdout.write(`${JSON.stringify({ id: ROW.id, clock: CLOCK, calls: CALLS, bytesPerCall, ...events, heapBefore, heapAfter })}\n`);
process.exit(0);
