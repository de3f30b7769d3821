// Runs every package's tests, after `turbo run build`: the README's test command (`pnpm test`).
//
// Packages run side by side, as many at once as the machine has cores (RATEKEEPER_TEST_LANES to
// choose), the longest first: each package's last duration is kept in node_modules/.cache, so the
// long suites (the stores, which start servers and processes of their own) start at once and the
// short ones fill the gaps. Packages share nothing a test changes: every suite that stops, kills or
// pauses a server starts its own on a free port, and each store keeps its own tables and keys.
// A package's output is printed whole when it ends, under its name, so two suites never interleave;
// the end is a table of each package's time and result, and the exit code is non-zero if any failed.
//
// `node scripts/test.mjs redis postgres` runs those packages only.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const TIMES = join(ROOT, 'node_modules', '.cache', 'ratekeeper-test-times.json');

/** packages lists the workspace directories whose package.json has a test script. */
function packages() {
  const dirs = [...readdirSync(join(ROOT, 'packages')).map((d) => join('packages', d)), 'benchmarks'];
  return dirs.filter((dir) => {
    try {
      return JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')).scripts?.test !== undefined;
    } catch {
      return false;
    }
  });
}

function readTimes() {
  try {
    return JSON.parse(readFileSync(TIMES, 'utf8'));
  } catch {
    return {};
  }
}

const wanted = process.argv.slice(2);
const all = packages().filter((dir) => wanted.length === 0 || wanted.some((w) => dir.endsWith(`/${w}`) || dir === w));
if (all.length === 0) {
  console.error(`test: no package matches ${wanted.join(', ')}`);
  process.exit(2);
}
// Seconds each package took in a run on the 2-core machine (2026-12-07): the order on a fresh clone,
// until a run here has timed them itself.
const TYPICAL = {
  'packages/postgres': 200,
  'packages/redis': 190,
  'packages/mysql': 105,
  'packages/sqlite': 80,
  'packages/core': 75,
  'packages/runtimes': 60,
  'packages/koa': 55,
  'packages/durable-object': 50,
  'packages/fastify': 50,
  'packages/express': 45,
  'packages/nestjs': 45,
  'packages/hono': 40,
  'packages/fetch': 40,
  'packages/readme': 35,
  'packages/store-contract': 35,
  'packages/graphql': 20,
  'packages/trpc': 12,
  'packages/ws': 8,
  'packages/otel': 5,
  benchmarks: 3,
};
const times = { ...TYPICAL, ...readTimes() };
// Unknown packages first (a new suite may be long), then the longest last time.
const queue = all.sort((a, b) => (times[b] ?? Number.POSITIVE_INFINITY) - (times[a] ?? Number.POSITIVE_INFINITY));
const lanes = Math.max(1, Number(process.env.RATEKEEPER_TEST_LANES ?? availableParallelism()));
const pnpm = process.env.npm_execpath;
const started = Date.now();
const results = [];

/** run runs one package's `test` script, its output kept until it ends. */
function run(dir) {
  return new Promise((resolve) => {
    const began = Date.now();
    console.log(`test: ${dir} started`);
    const [command, args] = pnpm?.endsWith('.cjs') || pnpm?.endsWith('.js') ? [process.execPath, [pnpm, 'run', 'test']] : ['npm', ['run', 'test']];
    const child = spawn(command, args, { cwd: join(ROOT, dir), stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - began) / 1000;
      process.stdout.write(`\n━━━━ ${dir} ━━━━\n`);
      process.stdout.write(Buffer.concat(output));
      console.log(`test: ${dir} ${code === 0 ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`} in ${seconds.toFixed(0)} s`);
      results.push({ dir, ok: code === 0, seconds, failing: code === 0 ? [] : failingTests(Buffer.concat(output).toString()) });
      times[dir] = seconds;
      resolve();
    });
  });
}

/** ANSI matches a terminal's colour codes (ESC [ … m), which vitest writes around FAIL. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** failingTests picks vitest's " FAIL  file > test" lines out of a package's output, once each, for the last lines of the run. */
function failingTests(text) {
  const lines = text.replace(ANSI, '').split('\n');
  return [...new Set(lines.filter((line) => /^\s*FAIL\s/.test(line)).map((line) => line.trim()))];
}

async function lane() {
  for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) await run(dir);
}

await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, lane));
mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
writeFileSync(TIMES, JSON.stringify(times, null, 2));

console.log(`\ntest: ${results.length} packages in ${((Date.now() - started) / 1000).toFixed(0)} s, ${lanes} at a time`);
for (const { dir, ok, seconds } of results.sort((a, b) => b.seconds - a.seconds)) {
  console.log(`  ${ok ? 'passed' : 'FAILED'}  ${seconds.toFixed(0).padStart(5)} s  ${dir}`);
}
const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  console.log(`test: failed: ${failed.map((r) => r.dir).join(', ')}`);
  for (const { dir, failing } of failed) for (const line of failing.length > 0 ? failing : ['(no FAIL line: see its output above)']) console.log(`  ${dir}: ${line}`);
  process.exit(1);
}
