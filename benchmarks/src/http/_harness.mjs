/**
 * The measuring loop of the HTTP benchmark, for one framework at a time.
 *
 * It starts five servers, each in its own process — bare, ratekeeper×{allow, deny} and
 * peer×{allow, deny} — warms each one up (which also spends the single request a deny server
 * admits), then runs `rounds` rounds per path. A round is one slice of each of [bare, ratekeeper,
 * peer] back to back, in an order rotated from round to round so that no library always runs right
 * after (or before) bare; every ratio and every CPU difference is taken within a round, against that
 * round's bare slice, because this machine drifts 20–30 % over tens of seconds. The allow and deny
 * rounds alternate.
 *
 * A slice reads the server's `process.cpuUsage()` over IPC, runs autocannon for `sliceMs` from the
 * client process, waits `SETTLE_MS` for the server to finish closing the slice's connections, and
 * reads the CPU again: (user + system µs) ÷ completed requests is the slice's CPU µs per request. It
 * also records the machine's CPU pressure over the slice (the share of time some task waited for a
 * CPU), so a table taken on a busy machine says so.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ask, startChild, stopChild } from './_children.mjs';

const SERVER_FILE = fileURLToPath(new URL('./_server-child.mjs', import.meta.url));
const SETTLE_MS = 50;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuMicros = (u) => u.user + u.system;

/**
 * stallMicros reads Linux PSI: the total µs during which some runnable task waited for a CPU (other
 * engineers' work included); undefined where /proc/pressure is absent.
 */
function stallMicros() {
  try {
    return Number(/total=(\d+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

/** measureSlice loads one server for `sliceMs` and returns what the slice did and cost. */
export async function measureSlice(client, server, cfg) {
  const before = await ask(server.proc, { type: 'cpu' });
  const stallBefore = stallMicros();
  const res = await ask(client, { type: 'slice', url: server.url, connections: cfg.connections, durationMs: cfg.sliceMs });
  const stalled = stallMicros() - stallBefore;
  await sleep(SETTLE_MS);
  const after = await ask(server.proc, { type: 'cpu' });
  const cpuUs = cpuMicros(after.usage) - cpuMicros(before.usage);
  return {
    requests: res.requests,
    rps: (res.requests * 1000) / res.wallMs,
    cpuPerReq: cpuUs / Math.max(res.requests, 1),
    busy: cpuUs / (res.wallMs * 1000),
    clientBusy: res.clientCpuUs / (res.wallMs * 1000),
    pressure: stalled / (res.wallMs * 1000),
    statusCounts: res.statusCounts,
    errors: res.errors + res.timeouts,
  };
}

/** variantsOf lists the servers of a framework; ratekeeper is left out when its adapter is missing. */
export function variantsOf(withRatekeeper) {
  const libs = withRatekeeper ? ['ratekeeper', 'peer'] : ['peer'];
  return [{ library: 'bare', path: 'allow' }, ...libs.flatMap((library) => ['allow', 'deny'].map((path) => ({ library, path })))];
}

async function startServers(framework, cfg) {
  const servers = {};
  try {
    for (const { library, path } of variantsOf(cfg.withRatekeeper)) {
      const execArgv = cfg.profileDir !== undefined && library !== 'bare'
        ? ['--cpu-prof', `--cpu-prof-dir=${cfg.profileDir}`, `--cpu-prof-name=${framework}-${library}-${path}.cpuprofile`]
        : [];
      const args = [framework, library, path, cfg.erlHeaders];
      const { proc, ready } = await startChild(SERVER_FILE, args, { cpu: cfg.serverCpu, execArgv });
      servers[`${library}:${path}`] = { proc, url: `http://127.0.0.1:${ready.port}/` };
    }
  } catch (err) {
    await Promise.all(Object.values(servers).map((s) => stopChild(s.proc)));
    throw err;
  }
  return servers;
}

function rotate(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/**
 * benchFramework runs every round for one framework and resolves to
 * `{ framework, rounds: [{ path, slices: { bare, ratekeeper?, peer } }] }`; its servers are
 * stopped whether it succeeds or not.
 */
export async function benchFramework(framework, client, cfg) {
  const servers = await startServers(framework, cfg);
  try {
    for (const server of Object.values(servers)) {
      await measureSlice(client, server, { ...cfg, sliceMs: cfg.warmupMs });
    }
    const libs = cfg.withRatekeeper ? ['bare', 'ratekeeper', 'peer'] : ['bare', 'peer'];
    const rounds = [];
    for (let r = 0; r < cfg.rounds; r++) {
      for (const path of ['allow', 'deny']) {
        const slices = {};
        for (const library of rotate(libs, r)) {
          const server = servers[library === 'bare' ? 'bare:allow' : `${library}:${path}`];
          slices[library] = await measureSlice(client, server, cfg);
        }
        rounds.push({ path, slices });
        cfg.onRound?.(framework, path, r);
      }
    }
    return { framework, rounds };
  } finally {
    await Promise.all(Object.values(servers).map((s) => stopChild(s.proc)));
  }
}
