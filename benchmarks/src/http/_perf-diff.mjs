/**
 * Where a limited server's extra CPU per request goes, by on-CPU sampling with Linux `perf`:
 * `node _perf-diff.mjs <framework> <path> [--seconds=N] [--reps=N] [--top=N] [--libraries=ratekeeper,peer]
 * [--base=bare|noop|control]`.
 *
 * Starts the bare server and each limited server of `path` (allow | deny) for `framework`, each in
 * its own process on CPU 1 with `--perf-basic-prof` (so perf can name JIT-compiled JavaScript), and
 * the autocannon client on CPU 0. After a warm-up it loads each server for `seconds` while
 * `perf record -e cpu-clock` samples that process only, `reps` times in rotated order (so that drift
 * hits every server alike), then prints, per symbol, the CPU µs per request of the limited server
 * (all its samples over all its requests) minus the bare server's.
 *
 * Unlike V8's --cpu-prof (which bills wall time between samples, so a descheduled function is
 * charged the wait), cpu-clock samples only while the process runs: the figures hold on a machine
 * busy with other work, which is why this tool exists. Not a section (its name starts with "_").
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flags } from '../lib/args.mjs';
import { ask, startChild, stopAll } from './_children.mjs';

const HERE = (file) => fileURLToPath(new URL(file, import.meta.url));
const FREQUENCY = 4999;

/** record loads `url` for `seconds` while perf samples `pid`; resolves to the requests answered. */
async function record(client, pid, url, seconds, out) {
  const perf = spawn('perf', ['record', '-e', 'cpu-clock', '-F', String(FREQUENCY), '-p', String(pid), '-o', out], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const res = await ask(client, { type: 'slice', url, connections: 50, durationMs: seconds * 1000 });
  const exited = new Promise((resolve) => perf.once('exit', resolve));
  perf.kill('SIGINT');
  await exited;
  return res.requests;
}

/** samplesBySymbol adds the samples of a perf.data file into `into` (Map symbol → samples). */
function samplesBySymbol(file, into) {
  const text = execFileSync('perf', ['report', '-i', file, '--stdio', '--no-children', '--sort', 'sym', '-F', 'sample,sym'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+\[[.kgu]\]\s+(.*)$/.exec(line);
    if (m) into.set(m[2].trim(), (into.get(m[2].trim()) ?? 0) + Number(m[1]));
  }
  return into;
}

/** perRequest turns sample counts into CPU µs per request. */
function perRequest(samples, requests) {
  return new Map([...samples].map(([sym, n]) => [sym, (n * 1e6) / FREQUENCY / requests]));
}

/** CATEGORIES group symbols so that a difference spread thinly over many of them still adds up. */
const CATEGORIES = [
  ['ratekeeper JS', (s) => s.startsWith('JS:') && s.includes('/packages/')],
  ['node/framework JS', (s) => s.startsWith('JS:')],
  ['regexps', (s) => s.startsWith('RegExp:')],
  ['V8 GC', (s) => /Scaveng|Heap|Mark|Sweep|RecordWrite|Evacuat|Concurrent|GC/.test(s)],
  ['V8 builtins and runtime', (s) => s.startsWith('Builtins_') || s.startsWith('v8::') || s.startsWith('Runtime_')],
  ['node C++ and libc', (s) => s.startsWith('node::') || s.startsWith('uv_') || s.startsWith('uv__') || s.startsWith('llhttp') || /^(malloc|free|_int_|mem|str|__)/.test(s)],
  ['kernel and other', () => true],
];

function byCategory(diff) {
  const sums = new Map(CATEGORIES.map(([name]) => [name, 0]));
  for (const [sym, d] of diff) {
    const [name] = CATEGORIES.find(([, test]) => test(sym));
    sums.set(name, sums.get(name) + d);
  }
  return [...sums].map(([name, d]) => `${name} ${d >= 0 ? '+' : ''}${d.toFixed(2)}`).join(', ');
}

function printDiff(name, limited, bare, top) {
  const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);
  console.log(`\n${name}: CPU µs per request ${sum(limited).toFixed(2)} − ${sum(bare).toFixed(2)} = ${(sum(limited) - sum(bare)).toFixed(2)}`);
  const keys = [...new Set([...limited.keys(), ...bare.keys()])];
  const rows = keys.map((k) => [k, (limited.get(k) ?? 0) - (bare.get(k) ?? 0)]).sort((a, b) => b[1] - a[1]);
  console.log(`  by category: ${byCategory(rows)}`);
  for (const [sym, d] of rows.slice(0, top)) console.log(`  ${d.toFixed(3).padStart(8)}  ${sym.slice(0, 110)}`);
  console.log('  …');
  for (const [sym, d] of rows.slice(-5)) console.log(`  ${d.toFixed(3).padStart(8)}  ${sym.slice(0, 110)}`);
}

async function main() {
  const [framework, path = 'allow'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const f = flags(process.argv.slice(2));
  const seconds = Number(f.seconds ?? 3);
  const reps = Number(f.reps ?? 3);
  const libraries = (f.libraries ?? 'ratekeeper,peer').split(',');
  const base = f.base ?? 'bare';
  const dir = mkdtempSync(join(tmpdir(), 'rk-perf-'));
  try {
    const { proc: client } = await startChild(HERE('./_client-child.mjs'), [], { cpu: 0 });
    const servers = {};
    for (const library of [base, ...libraries.filter((l) => l !== base)]) {
      const { proc, ready } = await startChild(HERE('./_server-child.mjs'), [framework, library, path, 'default'], { cpu: 1, execArgv: ['--perf-basic-prof'] });
      servers[library] = { proc, url: `http://127.0.0.1:${ready.port}/` };
      await ask(client, { type: 'slice', url: servers[library].url, connections: 50, durationMs: 2000 });
    }
    const names = Object.keys(servers);
    const samples = Object.fromEntries(names.map((n) => [n, new Map()]));
    const requests = Object.fromEntries(names.map((n) => [n, 0]));
    for (let r = 0; r < reps; r++) {
      for (const library of [...names.slice(r % names.length), ...names.slice(0, r % names.length)]) {
        const file = join(dir, `${library}-${r}.data`);
        requests[library] += await record(client, servers[library].proc.pid, servers[library].url, seconds, file);
        samplesBySymbol(file, samples[library]);
      }
    }
    const profiles = Object.fromEntries(names.map((n) => [n, perRequest(samples[n], requests[n])]));
    for (const n of names) console.log(`${framework} ${n} (${path}): ${requests[n]} requests sampled`);
    for (const library of libraries.filter((l) => l !== base)) {
      printDiff(`${framework} ${library} ${path} − ${base}`, profiles[library], profiles[base], Number(f.top ?? 30));
    }
  } finally {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
