/**
 * The measuring loop of the HTTP benchmark, for one framework at a time.
 *
 * It starts nine servers, each in its own process — bare, control (a second bare server), noop (bare
 * plus an empty middleware), ratekeeper×{allow, deny}, floor×{allow, deny} (the fair floor of
 * _floor.mjs) and peer×{allow, deny} (where the framework has a peer) — warms each one up
 * (which also spends the single request a deny server admits), then runs `rounds` rounds per path. A
 * round is one slice of each of [bare, ratekeeper, floor, peer] back to back (plus noop and control on the
 * allow path), in an order rotated from round to round so that no library always runs right after
 * (or before) bare; every ratio and every CPU difference is taken within a round, against that
 * round's bare slice, because this machine drifts 20–30 % over tens of seconds. The control row is
 * bare measured against bare: whatever it shows is the noise floor of the run. The noop row is what
 * the framework charges for any middleware at all. The allow and deny rounds alternate.
 *
 * A slice reads the server's `process.cpuUsage()` over IPC, runs autocannon for `sliceMs` from the
 * client process, waits `SETTLE_MS` for the server to finish closing the slice's connections, and
 * reads the CPU again: (user + system µs) ÷ completed requests is the slice's CPU µs per request. It
 * also records the machine's CPU pressure over the slice (the share of time some task waited for a
 * CPU), so a table taken on a busy machine says so. Before each round it waits (up to
 * `quietWaitMs`) for a half-second in which the machine is quiet (waitForQuiet).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ask, startChild, stopChild } from './_children.mjs';

const SERVER_FILE = fileURLToPath(new URL('./_server-child.mjs', import.meta.url));
const SETTLE_MS = 50;
const PROBE_MS = 500;
/** A machine is quiet when tasks waited for a CPU less than this share of a probe. */
export const QUIET_SHARE = 0.2;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuMicros = (u) => u.user + u.system;

/**
 * stallMicros reads Linux PSI: the total µs during which some runnable task waited for a CPU (other
 * engineers' work included); undefined where /proc/pressure is absent.
 */
function stallMicros() {
  try {
    const total = /total=(\d+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1];
    return total === undefined ? undefined : Number(total);
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

/**
 * waitForQuiet probes the CPU pressure in PROBE_MS steps until a probe is quiet or `maxWaitMs` has
 * passed, so that rounds start, where they can, when other work on the machine pauses. It resolves
 * to whether the last probe was quiet, or undefined when nothing was probed (no PSI, or no wait).
 */
export async function waitForQuiet(maxWaitMs) {
  if (stallMicros() === undefined || maxWaitMs === 0) return undefined;
  for (let waited = 0; ; waited += PROBE_MS) {
    const before = stallMicros();
    await sleep(PROBE_MS);
    if ((stallMicros() - before) / (PROBE_MS * 1000) < QUIET_SHARE) return true;
    if (waited + PROBE_MS >= maxWaitMs) return false;
  }
}

const UNLIMITED = ['bare', 'control', 'noop'];

/**
 * limitersOf lists the limited libraries of a run: ratekeeper (left out when its adapter is missing),
 * the fair floor, and the peer where the framework has one.
 */
const limitersOf = (cfg) => [...(cfg.withRatekeeper ? ['ratekeeper'] : []), 'floor', ...(cfg.withPeer === false ? [] : ['peer'])];

/** variantsOf lists the servers of a framework as { library, path }. */
export function variantsOf(cfg) {
  const limited = limitersOf(cfg).flatMap((library) => ['allow', 'deny'].map((path) => ({ library, path })));
  const unlimited = UNLIMITED.map((library) => ({ library, path: 'allow' }));
  return [...unlimited, ...limited];
}

/** roundOf lists the libraries measured in one round of `path`, rotated by the round number. */
function roundOf(cfg, path, r) {
  const libs = ['bare', ...limitersOf(cfg), ...(path === 'allow' ? ['noop', 'control'] : [])];
  const k = r % libs.length;
  return [...libs.slice(k), ...libs.slice(0, k)];
}

async function startServers(framework, cfg) {
  const servers = {};
  try {
    for (const { library, path } of variantsOf(cfg)) {
      const execArgv =
        cfg.profileDir !== undefined
          ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${cfg.profileDir}`, `--cpu-prof-name=${framework}-${library}-${path}.cpuprofile`]
          : [];
      const args = [framework, library, path, cfg.erlHeaders];
      const { proc, ready } = await startChild(SERVER_FILE, args, { cpu: cfg.serverCpu, execArgv, execPath: cfg.execPath });
      servers[`${library}:${path}`] = { proc, url: `http://127.0.0.1:${ready.port}/` };
    }
  } catch (err) {
    await Promise.all(Object.values(servers).map((s) => stopChild(s.proc)));
    throw err;
  }
  return servers;
}

/** reportProfiled prints how many measured requests each profiled server answered (for µs/request). */
function reportProfiled(framework, warmed, rounds, cfg) {
  for (const [key, warm] of Object.entries(warmed)) {
    const [library, path] = key.split(':');
    // bare serves both paths' rounds; every other server only its own path's.
    const served = rounds.filter((r) => r.slices[library] !== undefined && (r.path === path || library === 'bare'));
    const n = served.reduce((sum, r) => sum + r.slices[library].requests, warm);
    console.log(`profile ${cfg.profileDir}/${framework}-${library}-${path}.cpuprofile: ${n} requests`);
  }
}

/**
 * benchFramework runs every round for one framework and resolves to
 * `{ framework, rounds: [{ path, quiet, slices: { bare, ratekeeper?, peer, noop?, control? } }] }`; its
 * servers are stopped whether it succeeds or not.
 */
export async function benchFramework(framework, client, cfg) {
  const servers = await startServers(framework, cfg);
  try {
    const warmed = {};
    for (const [key, server] of Object.entries(servers)) {
      warmed[key] = (await measureSlice(client, server, { ...cfg, sliceMs: cfg.warmupMs })).requests;
    }
    const rounds = [];
    for (let r = 0; r < cfg.rounds; r++) {
      for (const path of ['allow', 'deny']) {
        const quiet = await waitForQuiet(cfg.quietWaitMs);
        const slices = {};
        for (const library of roundOf(cfg, path, r)) {
          const server = servers[`${library}:${UNLIMITED.includes(library) ? 'allow' : path}`];
          slices[library] = await measureSlice(client, server, cfg);
        }
        rounds.push({ path, quiet, slices });
        cfg.onRound?.(framework, path, r);
      }
    }
    if (cfg.profileDir !== undefined) reportProfiled(framework, warmed, rounds, cfg);
    return { framework, rounds };
  } finally {
    await Promise.all(Object.values(servers).map((s) => stopChild(s.proc)));
  }
}
