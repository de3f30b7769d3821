// Section "alloc": does a decision allocate? For `allow` on a hot key after its first request: the
// bytes allocated per call, and the GC events over ten million calls (a call that allocates nothing
// can never trigger a scavenge), with heapUsed before and after. Ratekeeper's limiters run twice: on
// the default systemClock, and on a ManualClock that never moves, which separates the limiter's own
// allocation from the clock's. The naive bucket and @fastify/rate-limit's LocalStore (the synchronous
// peer) read Date.now() as they always do. Each row runs in PROCESSES fresh processes
// (lib/alloc-child.mjs), because whether a call allocates can depend on what V8's optimising compiler
// chose to inline in that process, and that choice can differ from one process to the next: a cell
// shows each process's figure, separated by '/'.
//
// Flags: --alloc-calls=N (10000000), --alloc-processes=N (3), --alloc-only=id,id (operation ids).
import { flags, intFlag } from './lib/args.mjs';
import { runChild } from './lib/child.mjs';
import { contenders, operation } from './lib/contenders.mjs';
import { fixed, formatTable, grouped } from './lib/table.mjs';

const ROWS = [
  ['naive.allow', 'system'],
  ['fastifyRateLimit.incr', 'system'],
  ['tokenBucket.allow', 'system'],
  ['slidingWindow.allow', 'system'],
  ['fixedWindow.allow', 'system'],
  ['composite.allow', 'system'],
  ['tokenBucket.allow', 'manual'],
  ['slidingWindow.allow', 'manual'],
  ['fixedWindow.allow', 'manual'],
  ['composite.allow', 'manual'],
];

const CLOCK_LABEL = { system: 'its own (Date.now)', manual: 'ManualClock (fixed)' };

export async function run(args) {
  const f = flags(args);
  const only = f['alloc-only']?.split(',');
  const passOn = f['alloc-calls'] === undefined ? [] : [`--calls=${f['alloc-calls']}`];
  const processes = intFlag(f, 'alloc-processes', 3);
  const results = [];
  for (const [id, clock] of ROWS.filter(([id]) => only === undefined || only.includes(id))) {
    process.stderr.write(`alloc: ${id} (${clock} clock)\n`);
    const runs = [];
    for (let p = 0; p < processes; p++) {
      runs.push(await runChild('alloc-child.mjs', { nodeFlags: ['--expose-gc'], args: [`--row=${id}`, `--clock=${clock}`, ...passOn] }));
    }
    results.push(runs);
  }
  console.log(render(results));
}

function render(results) {
  const rows = results.map((runs) => {
    const [r] = runs;
    const op = operation(r.id);
    const ratekeeper = op.contender !== 'naive' && op.contender !== 'fastifyRateLimit';
    const clock = ratekeeper ? (r.clock === 'system' ? 'systemClock' : CLOCK_LABEL.manual) : CLOCK_LABEL.system;
    const each = (figure) => runs.map(figure).join(' / ');
    return [
      contenders[op.contender].label,
      op.op,
      clock,
      each((x) => fixed(Math.max(0, x.bytesPerCall), 0)),
      each((x) => String(x.scavenges)),
      each((x) => String(x.majors + x.incrementals)),
      each((x) => fixed((x.heapAfter - x.heapBefore) / 1024, 0)),
    ];
  });
  const calls = grouped(results[0]?.[0].calls ?? 0);
  return [
    `alloc — one hot key, after its first request; GC events over ${calls} calls; each row in ${results[0]?.length ?? 0} fresh process(es), figures per process '/'-separated`,
    '',
    formatTable(['contender', 'operation', 'clock', 'bytes/call', 'scavenges', 'major GCs', 'heapUsed Δ KiB'], rows),
    '',
    'bytes/call: V8 new-space growth over 10,000 calls with no GC in between (rounded; 16 = one boxed double). scavenges / major GCs: gc entries',
    `during the ${calls} calls (major = mark-compact and incremental marking). heapUsed Δ: after − before those calls, no forced GC.`,
  ].join('\n');
}
