/**
 * One server of the allocation harness (_alloc.mjs) in its own process: `node --expose-gc
 * --min-semi-space-size=512 --max-semi-space-size=512 _alloc-server-child.mjs <framework> <library>
 * <path>`. It serves the HTTP benchmark's app (_servers.mjs) on 127.0.0.1 and measures its own heap:
 *
 * - `{ type: 'mark', id }`: a minor GC (the young generation empty), then the heap
 *   readings and `process.cpuUsage()` are kept; replies `{ type: 'mark', id }`;
 * - `{ type: 'read', id }` → `{ type: 'read', id, newBytes, heapBytes, gcs, cpuUs }`: the growth of
 *   new space and of every space's used bytes since the mark, the GCs that ran in between (a reading
 *   with a GC is void: a scavenge frees what the growth would count), and the CPU µs spent;
 * - `{ type: 'sample', id }` starts V8's sampling heap profiler (every 64 bytes on average, objects
 *   a GC collected kept), `{ type: 'sampled', id }` stops it and replies `{ profile }`: where the
 *   bytes were allocated, for _alloc.mjs's `--profile`;
 * - `{ type: 'stop' }` exits; so does a lost channel.
 *
 * With 512 MB semi-spaces a block of ten thousand responses (a few KB each) fits in new space, so no
 * GC runs inside it and the growth is every byte the process allocated on the JavaScript heap for
 * those responses: Node's HTTP machinery, the framework, the limiter. Buffers' backing stores live
 * outside the heap and are not counted (their small JavaScript wrappers are).
 */
import { Session } from 'node:inspector/promises';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { listenApp } from './_servers.mjs';

const [framework, library, path] = process.argv.slice(2);
let gcs = 0;
let gcKinds = '';
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_WEAKCB) continue;
    gcs++;
    gcKinds += `${entry.detail.kind} `;
  }
}).observe({ entryTypes: ['gc'] });

/** used answers the used bytes of new space and of the whole heap. */
function used() {
  let heap = 0;
  let young = 0;
  for (const s of getHeapSpaceStatistics()) {
    heap += s.space_used_size;
    if (s.space_name === 'new_space') young = s.space_used_size;
  }
  return { young, heap };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
let mark;
let session;

async function onMessage(msg, server) {
  if (msg?.type === 'mark') {
    globalThis.gc({ type: 'minor' }); // young generation emptied; a full GC would lower the old-space limit and let Express's old-space growth start marking
    await tick(); // GC observer entries arrive asynchronously: count them before the mark
    mark = { ...used(), gcs, cpu: process.cpuUsage() };
    gcKinds = '';
    process.send({ type: 'mark', id: msg.id });
  } else if (msg?.type === 'read') {
    const now = used();
    const cpu = process.cpuUsage(mark.cpu);
    await tick();
    process.send({ type: 'read', id: msg.id, newBytes: now.young - mark.young, heapBytes: now.heap - mark.heap, gcs: gcs - mark.gcs, gcKinds, cpuUs: cpu.user + cpu.system });
  } else if (msg?.type === 'sample') {
    session ??= new Session();
    session.connect();
    await session.post('HeapProfiler.startSampling', { samplingInterval: 64, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    process.send({ type: 'sample', id: msg.id });
  } else if (msg?.type === 'sampled') {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    session.disconnect();
    process.send({ type: 'sampled', id: msg.id, profile });
  } else if (msg?.type === 'stop') {
    server.closeAllConnections?.();
    server.close();
    process.exit(0);
  }
}

async function main() {
  if (typeof process.send !== 'function') throw new Error('alloc-server-child: start me with an IPC channel');
  if (typeof globalThis.gc !== 'function') throw new Error('alloc-server-child: run with --expose-gc');
  const server = await listenApp(framework, library, path);
  process.on('message', (msg) => void onMessage(msg, server));
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready', port: server.address().port });
}

main().catch((err) => {
  process.send?.({ type: 'failed', message: String(err?.stack ?? err) });
  process.exit(1);
});
