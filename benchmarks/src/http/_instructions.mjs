/**
 * Instructions per request of the in-process tool's variants, counted by valgrind's callgrind: a
 * count no machine load moves, for a busy machine where timed rows cannot resolve a microsecond.
 *
 *   node src/http/_instructions.mjs --framework=hono|fetch|fastify|koa|express [--path=allow|deny]
 *     [--libraries=floor,ratekeeper,peer] [--calls=2000,6000] [--jobs=2]
 *
 * Each variant runs `_in-process.mjs --libraries=<one> --rounds=1 --calls=N` under callgrind (Node
 * with `--single-threaded`: no compiler or GC threads whose work would land at random), once with
 * each of two call counts. That tool makes N warm-up calls and one round of N, so the instructions
 * per request are the difference of the two totals over twice the difference of the counts: process
 * start, module loading and the first calls' compilation cancel out. It counts what the in-process
 * tool runs (Node's IncomingMessage and ServerResponse on a stand-in socket): no socket reads or
 * writes, and a GC only as often as those calls' garbage makes one.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { flags } from '../lib/args.mjs';
import { fixed, formatTable, grouped } from '../lib/table.mjs';

const f = flags(process.argv.slice(2));
const framework = f.framework ?? 'hono';
const path = f.path ?? 'allow';
const libraries = (f.libraries ?? (framework === 'fetch' ? 'floor,ratekeeper' : 'floor,ratekeeper,peer')).split(',');
const [low, high] = (f.calls ?? '2000,6000').split(',').map(Number);
const JOBS = Number(f.jobs ?? 2);
if (!(high > low && low > 0)) throw new RangeError(`instructions: --calls must be two counts, low then high, got ${f.calls}`);
const TOOL = fileURLToPath(new URL('./_in-process.mjs', import.meta.url));

/** count runs one variant for `calls` calls under callgrind and resolves to the instructions of the whole process. */
function count(library, calls) {
  const args = [
    '--tool=callgrind',
    '--callgrind-out-file=/dev/null',
    process.execPath,
    '--single-threaded',
    TOOL,
    `--framework=${framework}`,
    `--path=${path}`,
    `--libraries=${library}`,
    '--rounds=1',
    `--calls=${calls}`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('exit', (code) => {
      const m = /Collected : (\d+)/.exec(err);
      if (code !== 0 || m === null) reject(new Error(`instructions: ${library} ${calls}: exit ${code}\n${err.slice(-2000)}`));
      else resolve(Number(m[1]));
    });
  });
}

const jobs = libraries.flatMap((library) => [low, high].map((calls) => ({ library, calls })));
const totals = new Map();
let next = 0;
async function worker() {
  while (next < jobs.length) {
    const job = jobs[next++];
    totals.set(`${job.library} ${job.calls}`, await count(job.library, job.calls));
  }
}
await Promise.all(Array.from({ length: JOBS }, worker));
const perCall = (library) => (totals.get(`${library} ${high}`) - totals.get(`${library} ${low}`)) / (2 * (high - low));
const floor = libraries.includes('floor') ? perCall('floor') : undefined;
console.log(`${framework} ${path}: instructions per request in process (callgrind, ${low} and ${high} calls; ${new Date().toISOString()}, Node ${process.version})`);
const rows = libraries.map((library) => [
  library,
  grouped(perCall(library)),
  floor === undefined || library === 'floor' ? '' : grouped(perCall(library) - floor),
  floor === undefined ? '' : fixed(perCall(library) / floor, 3),
]);
console.log(formatTable(['library', 'instructions/request', '− floor', '× floor'], rows));
