/**
 * Bytes the server allocates per response, on real sockets: each variant of the HTTP benchmark
 * (_servers.mjs: bare, the fair floor, ratekeeper, the framework's own limiter) runs in its own
 * server process (_alloc-server-child.mjs) that measures its own JavaScript heap, while this process
 * sends it requests over loopback (keep-alive, `--connections` at once).
 *
 *   node src/http/_alloc.mjs [--frameworks=express,fastify,koa,hono,fetch] [--paths=allow,deny]
 *     [--requests=8000] [--rounds=5] [--connections=8] [--libraries=bare,floor,ratekeeper,peer]
 *     [--profile[=12]]
 *
 * Per framework and path, every variant's server is started, warmed (`--requests` requests, then as
 * many again), and then measured in `--rounds` rounds that visit the variants in a rotated order. A
 * block is: the server runs a minor GC and marks its heap, this process sends `--requests` requests
 * and checks every status (200 on allow, 429 on deny but for bare), the server reads its heap again.
 * With 512 MB semi-spaces no GC runs inside a block (a block with one is void and retried), so the
 * growth of new space is every byte allocated on the heap for those responses; an idle block (a mark
 * and a read, no requests) is subtracted. Allocation barely varies from block to block: the median
 * is printed with its spread (min–max). The server's CPU µs per response from the same blocks is
 * printed beside it, with the per-round difference to the floor; on a loaded machine that column is
 * noise-bound, and it omits GC, which these blocks never run: the bytes are what a busy server pays
 * for in scavenges.
 *
 * `--profile` adds a last block per variant under V8's sampling heap profiler and prints, per
 * variant, the functions that allocated most (self bytes per response, estimated from the samples),
 * and each variant's difference to the floor by function.
 */
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { flags, intFlag } from '../lib/args.mjs';
import { median, medianInterval } from '../lib/stats.mjs';
import { fixed, formatTable } from '../lib/table.mjs';
import { ask, startChild, stopAll, stopChild } from './_children.mjs';
import { PEER_NAMES } from './_servers.mjs';

const f = flags(process.argv.slice(2));
const frameworks = (f.frameworks ?? 'express,fastify,koa,hono,fetch').split(',');
const paths = (f.paths ?? 'allow,deny').split(',');
const REQUESTS = intFlag(f, 'requests', 8000); // Express: 3000 (its old-space growth starts marking inside longer blocks)
const ROUNDS = intFlag(f, 'rounds', 5);
const CONNECTIONS = intFlag(f, 'connections', 8);
const LIBRARIES = (f.libraries ?? 'bare,floor,ratekeeper,peer').split(',');
const CHILD = fileURLToPath(new URL('./_alloc-server-child.mjs', import.meta.url));
// No memory reducer (it starts GCs in a server that looks idle) and a large first old-space limit
// (Express moves about 2 KB a response to old space, which would start incremental marking): no GC voids the blocks.
const EXEC_ARGV = ['--expose-gc', '--min-semi-space-size=512', '--max-semi-space-size=512', '--initial-old-space-size=512', '--no-memory-reducer'];
const MAX_TRIES = 4;
const PROFILE = f.profile === undefined ? 0 : f.profile === 'true' ? 12 : intFlag(f, 'profile', 12);

/** bytesByFunction flattens a sampling heap profile into self bytes per request by function and place. */
function bytesByFunction(profile, requests) {
  const byFrame = new Map();
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/packages\//, '')}:${lineNumber + 1}`;
    byFrame.set(where, (byFrame.get(where) ?? 0) + node.selfSize / requests);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return byFrame;
}

/** heaviest lists the `top` entries of `byFrame` with the largest magnitude, one line each. */
const heaviest = (byFrame, top) =>
  [...byFrame]
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
    .slice(0, top)
    .map(([where, bytes]) => `  ${fixed(bytes, 0).padStart(6)} B  ${where}`)
    .join('\n');

/** minus is `a − b` by function (a sampled profile against the floor's). */
function minus(a, b) {
  const out = new Map(a);
  for (const [where, bytes] of b) out.set(where, (out.get(where) ?? 0) - bytes);
  return out;
}

/**
 * load sends `n` GET / requests to the port through `agent` (its connections kept from block to block,
 * so a block opens none), `CONNECTIONS` at a time, and resolves to their statuses' counts.
 */
function load(agent, port, n) {
  const statuses = new Map();
  let sent = 0;
  return new Promise((resolve, reject) => {
    let open = 0;
    const next = () => {
      if (sent === n) {
        if (open === 0) resolve(statuses);
        return;
      }
      sent++;
      open++;
      const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
        res.resume();
        res.on('end', () => {
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          open--;
          next();
        });
      });
      req.on('error', reject);
      req.end();
    };
    for (let i = 0; i < CONNECTIONS; i++) next();
  });
}

/** block measures `n` requests to one server (n = 0: the idle block); a block with a GC in it is retried. */
async function block(server, n, want) {
  let last;
  for (let t = 0; t < MAX_TRIES; t++) {
    await ask(server.proc, { type: 'mark' });
    const statuses = n > 0 ? await load(server.agent, server.port, n) : new Map();
    const read = await ask(server.proc, { type: 'read' });
    if (n > 0 && statuses.get(want) !== n) throw new Error(`alloc: ${server.library} answered ${JSON.stringify([...statuses])}, want ${n}× ${want}`);
    if (read.gcs === 0) return read;
    last = read;
  }
  throw new Error(`alloc: ${server.framework} ${server.library}: a GC ran in each of ${MAX_TRIES} blocks (${last.gcKinds})`);
}

async function measure(framework, path) {
  const libraries = LIBRARIES.filter((l) => l !== 'peer' || PEER_NAMES[framework] !== undefined);
  const servers = [];
  for (const library of libraries) {
    const { proc, ready } = await startChild(CHILD, [framework, library, path], { execArgv: EXEC_ARGV });
    const want = path === 'deny' && library !== 'bare' ? 429 : 200;
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    servers.push({ framework, library, proc, port: ready.port, agent, want, bytes: [], heap: [], cpu: [] });
  }
  for (const s of servers) {
    await load(s.agent, s.port, REQUESTS * 2 + 1); // warm-up; on deny it spends the one allowed request
  }
  for (let r = 0; r < ROUNDS; r++) {
    const k = r % servers.length;
    for (const s of [...servers.slice(k), ...servers.slice(0, k)]) {
      const idle = await block(s, 0, s.want);
      const busy = await block(s, REQUESTS, s.want);
      s.bytes.push((busy.newBytes - idle.newBytes) / REQUESTS);
      s.heap.push((busy.heapBytes - idle.heapBytes) / REQUESTS);
      s.cpu.push((busy.cpuUs - idle.cpuUs) / REQUESTS);
    }
  }
  for (const s of servers) {
    if (PROFILE === 0) continue;
    await ask(s.proc, { type: 'sample' });
    await load(s.agent, s.port, REQUESTS);
    const { profile } = await ask(s.proc, { type: 'sampled' });
    s.profile = bytesByFunction(profile, REQUESTS);
    console.log(`${framework} ${path} ${s.library}: self bytes per response by function (sampled)\n${heaviest(s.profile, PROFILE)}`);
  }
  const floorProfile = servers.find((s) => s.library === 'floor')?.profile;
  for (const s of servers) {
    if (floorProfile === undefined || s.profile === undefined || s.library === 'floor') continue;
    console.log(`${framework} ${path} ${s.library} − floor: self bytes per response by function (sampled)\n${heaviest(minus(s.profile, floorProfile), PROFILE)}`);
  }
  for (const s of servers) s.agent.destroy();
  await Promise.all(servers.map((s) => stopChild(s.proc)));
  return servers;
}

const spread = (xs) => `${fixed(Math.min(...xs), 0)}–${fixed(Math.max(...xs), 0)}`;
/** diff is the median [95 % interval] of the per-round differences of `xs` to `base`. */
function diff(xs, base, digits) {
  const d = xs.map((x, r) => x - base[r]);
  const [lo, hi] = medianInterval(d);
  return `${fixed(median(d), digits)} [${fixed(lo, digits)}, ${fixed(hi, digits)}]`;
}

process.on('SIGINT', () => stopAll().then(() => process.exit(130)));
console.log(
  `HTTP allocation per response — ${new Date().toISOString()} — Node ${process.version}; ${ROUNDS} rounds of ${REQUESTS} requests per variant, ${CONNECTIONS} keep-alive connections on 127.0.0.1`,
);
const rows = [];
try {
  for (const framework of frameworks) {
    for (const path of paths) {
      const servers = await measure(framework, path);
      const floor = servers.find((s) => s.library === 'floor');
      for (const s of servers) {
        const name = s.library === 'peer' ? PEER_NAMES[framework] : s.library;
        const vsFloor = floor === undefined || s === floor || s.library === 'bare';
        rows.push([
          framework,
          path,
          name,
          fixed(median(s.bytes), 0),
          spread(s.bytes),
          fixed(median(s.heap), 0),
          vsFloor ? '' : fixed(median(s.bytes) - median(floor.bytes), 0),
          fixed(median(s.cpu), 1),
          vsFloor ? '' : diff(s.cpu, floor.cpu, 1),
        ]);
      }
    }
  }
} finally {
  await stopAll();
}
console.log(formatTable(['framework', 'path', 'library', 'B/resp (new space)', 'min–max', 'B/resp (all spaces)', '− floor B', 'CPU µs/resp', '− floor µs [95% CI]'], rows));
