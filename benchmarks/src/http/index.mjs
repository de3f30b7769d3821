/**
 * Section "http/index": Express 5, Fastify 5 and Koa 3 hello-world servers, bare, with ratekeeper and
 * with each framework's popular limiter, on the allowed path and on the 429 path. Prints one table
 * (see _report.mjs for the columns and _harness.mjs for the method).
 *
 * `run(args)` takes the command line's `--name=value` flags (see ../lib/args.mjs). Its own flags carry
 * an `http-` prefix so that the other sections' `--rounds` and the like do not reach it:
 *   --http-rounds=N        rounds per path (default 8)
 *   --http-slice-ms=N      length of one slice (default 800)
 *   --http-warmup-ms=N     warm-up slice per server (default 1000)
 *   --http-connections=N   autocannon connections (default 50)
 *   --http-frameworks=a,b  subset of express,fastify,koa,hono,fetch,bun,bun-hono (bun: the fetch adapter on
 *                          Bun.serve; bun-hono: the Hono adapter on Bun; both need the `bun` package)
 *   --http-erl-headers=X   'default' (express-rate-limit's legacy X-RateLimit-*) or 'draft-8'
 *   --http-quiet-wait-ms=N before each round, wait up to N ms for a quiet machine (default 1000; 0: never)
 *   --http-pin=false       do not pin the client and the servers to separate CPUs
 *   --http-json=FILE       also write every slice's figures to FILE
 *   --http-profile=DIR     write a --cpu-prof profile of every server into DIR (diagnosis only: the
 *                          profiler's cost is in the table) and print each one's request count. Bun
 *                          writes one too, but its sampler bills time outside JavaScript (the server's
 *                          native work, idle) to the last JavaScript function on the stack: for where
 *                          Bun's time goes, profile `_in-process.mjs` instead
 * It also runs standalone: `node benchmarks/src/http/index.mjs [flags]`. Every child process is
 * stopped when it returns, throws or is interrupted.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bunBinary as findBun } from '../../../scripts/bun-binary.mjs';
import { flags, intFlag } from '../lib/args.mjs';
import { hasTaskset, startChild, stopAll } from './_children.mjs';
import { benchFramework } from './_harness.mjs';
import { formatTable, pressureNote, summarize } from './_report.mjs';
import { BUN_FRAMEWORKS, FRAMEWORKS, PEER_NAMES } from './_servers.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const CLIENT_FILE = fileURLToPath(new URL('./_client-child.mjs', import.meta.url));

/** parseArgs reads the http- flags into options; flags of other sections are ignored. */
export function parseArgs(args = []) {
  const f = flags(args);
  const frameworks = (f['http-frameworks'] ?? FRAMEWORKS.join(',')).split(',');
  const stray = frameworks.find((fw) => !FRAMEWORKS.includes(fw));
  if (stray !== undefined) throw new TypeError(`--http-frameworks must list ${FRAMEWORKS.join(', ')}, got ${stray}`);
  const erlHeaders = f['http-erl-headers'] ?? 'default';
  if (erlHeaders !== 'default' && erlHeaders !== 'draft-8') throw new TypeError(`--http-erl-headers must be default or draft-8, got ${erlHeaders}`);
  return {
    rounds: intFlag(f, 'http-rounds', 8),
    sliceMs: intFlag(f, 'http-slice-ms', 800),
    warmupMs: intFlag(f, 'http-warmup-ms', 1000),
    connections: intFlag(f, 'http-connections', 50),
    frameworks,
    erlHeaders,
    quietWaitMs: f['http-quiet-wait-ms'] === '0' ? 0 : intFlag(f, 'http-quiet-wait-ms', 1000),
    pin: f['http-pin'] !== 'false',
    profile: f['http-profile'],
    json: f['http-json'],
  };
}

/**
 * adapterReady reports whether @ratekeeper/<framework> exports rateLimit, asked in a fresh Node
 * process (so a failed or partial load is never cached here) and retried a few times a second apart:
 * another engineer's rebuild empties a dist for a moment.
 */
async function adapterReady(framework, attempts = 5) {
  const probe = `const m = await import('@ratekeeper/${framework}'); process.exit(typeof m.rateLimit === 'function' ? 0 : 1);`;
  for (let i = 1; ; i++) {
    try {
      execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: HERE, stdio: 'ignore' });
      return true;
    } catch {
      if (i >= attempts) return false;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function describeSetup(opts, pinned) {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return [
    `HTTP benchmark — ${new Date().toISOString()} — Node ${process.version}, ${cpus().length}× ${cpu}`,
    `autocannon on 127.0.0.1, ${opts.connections} connections, pipelining 1; ${opts.rounds} rounds per path of ` +
      `[bare, ratekeeper, floor, peer] slices of ${opts.sliceMs} ms (rotated order), ${opts.warmupMs} ms warm-up per server, ` +
      `up to ${opts.quietWaitMs} ms wait for a quiet machine before each round`,
    pinned ? 'client pinned to CPU 0, servers to CPU 1 (taskset)' : 'no CPU pinning: client and server share the cores',
    `express-rate-limit headers: ${opts.erlHeaders === 'draft-8' ? "standardHeaders 'draft-8', no legacy headers" : 'its defaults (legacy X-RateLimit-*, no standard headers)'}`,
  ].join('\n');
}

/** run benchmarks every framework and prints the table; it resolves to the table rows. */
export async function run(args = []) {
  const opts = parseArgs(args);
  const pinned = opts.pin && hasTaskset(cpus().length);
  const onSignal = () => stopAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  try {
    console.log(describeSetup(opts, pinned));
    const { proc: client } = await startChild(CLIENT_FILE, [], pinned ? { cpu: 0 } : {});
    const results = [];
    for (const framework of opts.frameworks) {
      const adapter = { bun: 'fetch', 'bun-hono': 'hono' }[framework] ?? framework;
      const withRatekeeper = await adapterReady(adapter);
      if (!withRatekeeper) console.log(`(${framework}: @ratekeeper/${adapter} has no rateLimit export yet; measuring bare, floor and peer only)`);
      const execPath = BUN_FRAMEWORKS.includes(framework) ? findBun(import.meta.url) : undefined;
      if (BUN_FRAMEWORKS.includes(framework) && execPath === undefined) {
        console.log(`(${framework}: Bun is not installed (pnpm install brings the bun package); skipped)`);
        continue;
      }
      const cfg = {
        ...opts,
        withRatekeeper,
        withPeer: PEER_NAMES[framework] !== undefined,
        execPath,
        serverCpu: pinned ? 1 : undefined,
        profileDir: opts.profile === undefined ? undefined : resolve(opts.profile),
        onRound: (fw, path, r) => process.stderr.write(`  ${fw} ${path} round ${r + 1}/${opts.rounds}\n`),
      };
      results.push(await benchFramework(framework, client, cfg));
    }
    const rows = results.flatMap(summarize);
    console.log(formatTable(rows));
    console.log(pressureNote(results));
    if (opts.json !== undefined) writeFileSync(opts.json, `${JSON.stringify({ opts, results }, null, 1)}\n`);
    return rows;
  } finally {
    process.off('SIGINT', onSignal);
    await stopAll();
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  run(process.argv.slice(2)).catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
