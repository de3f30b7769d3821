// Attack: a burst on one key against a healthy Redis, on a quiet and on a busy machine, and a Redis
// that stops answering (issues 7 and 16).
//
// burst: 8 processes, each with its own connection and a TokenBucketLimiter({ capacity: 500 }) on
// `new RedisStore({ client })` with default options, fire 2,000 consume calls at once on one key
// after a barrier. The right answer is exactly 500 admitted; anything more is over-admission. The
// scenarios (Redis at normal priority, on the same 2 cores as the processes flooding it):
//   quiet     the processes warmed up (one consume each), then the burst;
//   cold      8 processes started together, each store's first call a peek on another key, then the burst;
//   loaded    cold, while two more processes burn both cores;
//   busy      warm processes burning CPU in 5 ms slices, and 5 ms per admitted request, during the burst;
//   restart   8 processes started together with the burst already arriving (no warm-up, no barrier).
// `--attack-redis=<path to a @ratekeeper/redis build's index.js>` runs another build (say, an older
// main's) in the same harness, for before/after rows. Each row also gives the CPU redis-server spent
// per decision of the burst (INFO CPU around it, median of the runs).
// stall: one process keeps deciding (one call every 2 ms over 50 keys) while the redis-server is
// SIGSTOPped for 2 s; it prints the slowest decision during the stall and how they were decided.
import { fork, spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { TokenBucketLimiter } from '@ratekeeper/core';
import { Redis } from 'ioredis';
import { formatTable as table } from '../lib/table.mjs';
import { startRedis } from '../redis/_server.mjs';

const WORKERS = 8;
const REQUESTS = 2000;
const LIMIT = 500;
const WORKER = new URL('./_burst-worker.mjs', import.meta.url);

function ask(child, message, want) {
  return new Promise((resolve, reject) => {
    const on = (reply) => {
      child.off('message', on);
      if (reply.type === want) resolve(reply);
      else reject(new Error(`burst worker: ${reply.message ?? reply.type}`));
    };
    child.on('message', on);
    child.send(message);
  });
}

const SCENARIOS = ['quiet', 'cold', 'loaded', 'busy', 'restart'];

/** redisCpuUs reads the CPU redis-server has used so far (INFO CPU, user and system), in microseconds. */
async function redisCpuUs(admin) {
  const info = await admin.info('cpu');
  const read = (name) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? Number.NaN);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1e6;
}

/**
 * burst runs one scenario once on 8 fresh processes and sums their reports, with the CPU Redis spent
 * per decision of the burst (INFO CPU around the 'go', so neither the processes' setup nor their exit
 * counts; not measured for 'restart', which has no barrier).
 */
async function burst(port, client, scenario, run, redis, admin) {
  const children = Array.from({ length: WORKERS }, () => fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const burners =
    scenario === 'loaded'
      ? Array.from({ length: 2 }, () => spawn(process.execPath, ['-e', 'const end = Date.now() + 600_000; while (Date.now() < end);'], { stdio: 'ignore' }))
      : [];
  try {
    const key = `burst-${scenario}-${client}-${run}-${Date.now()}`;
    const common = { port, client, key, limit: LIMIT, requests: REQUESTS, redis };
    let reports;
    let cpuUs = Number.NaN;
    if (scenario === 'restart') {
      reports = await Promise.all(children.map((c) => ask(c, { type: 'cold', ...common }, 'done')));
    } else {
      const busy = scenario === 'busy' ? { sliceMs: 5, handlerMs: 5 } : undefined;
      const setup = { type: 'setup', ...common, busy, peek: scenario === 'cold' || scenario === 'loaded' };
      await Promise.all(children.map((c) => ask(c, setup, 'ready')));
      const before = await redisCpuUs(admin);
      reports = await Promise.all(children.map((c) => ask(c, { type: 'go' }, 'done')));
      cpuUs = (await redisCpuUs(admin)) - before;
    }
    return {
      admitted: reports.reduce((s, r) => s + r.admitted, 0),
      byPolicy: reports.reduce((s, r) => s + r.byPolicy, 0),
      cpuPerDecisionUs: cpuUs / (WORKERS * REQUESTS),
    };
  } finally {
    for (const b of burners) b.kill('SIGKILL');
    for (const c of children) if (c.connected) c.send({ type: 'exit' });
  }
}

async function stall(server, redis) {
  const { RedisStore } = await import(redis ?? '@ratekeeper/redis');
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  await client.ping();
  const limiter = new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 100, store: new RedisStore({ client, prefix: 'stall:' }) });
  await limiter.consume('warm');
  let slowest = 0;
  let byRedis = 0;
  let byPolicy = 0;
  let stopped = false;
  let continued = false;
  const startedAt = performance.now();
  const pending = [];
  for (let i = 0; performance.now() - startedAt < 3000; i++) {
    if (!stopped && performance.now() - startedAt > 500) {
      process.kill(server.pid, 'SIGSTOP');
      stopped = true;
      setTimeout(() => {
        continued = true;
        process.kill(server.pid, 'SIGCONT');
      }, 2000);
    }
    const sent = performance.now();
    const inStall = stopped && !continued;
    pending.push(
      limiter.consume(`k${i % 50}`).then((d) => {
        if (!inStall) return;
        slowest = Math.max(slowest, performance.now() - sent);
        if (d.failure === undefined) byRedis++;
        else byPolicy++;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(pending);
  client.disconnect();
  return { slowest, byRedis, byPolicy };
}

export async function run(args) {
  const flag = (name, fallback) => args.find((a) => a.startsWith(`--attack-${name}=`))?.split('=')[1] ?? fallback;
  const runs = Number(flag('runs', 3));
  const scenarios = flag('scenarios', SCENARIOS.join(',')).split(',');
  const build = flag('redis', undefined);
  const redis = build === undefined ? undefined : pathToFileURL(build).href;
  const server = await startRedis();
  const admin = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    const rows = [];
    for (const scenario of scenarios) {
      for (const client of ['ioredis', 'node-redis']) {
        const admitted = [];
        const cpu = [];
        let byPolicy = 0;
        for (let r = 0; r < runs; r++) {
          const result = await burst(server.port, client, scenario, r, redis, admin);
          admitted.push(result.admitted);
          cpu.push(result.cpuPerDecisionUs);
          byPolicy += result.byPolicy;
        }
        const median = cpu.sort((a, b) => a - b)[Math.floor(cpu.length / 2)];
        rows.push([
          scenario,
          client,
          admitted.join(', '),
          String(LIMIT),
          `${(Math.max(...admitted) / LIMIT).toFixed(2)}×`,
          String(byPolicy),
          Number.isNaN(median) ? '—' : median.toFixed(2),
        ]);
      }
    }
    console.log(
      `burst: ${WORKERS} processes × ${REQUESTS} consume at once on one key, TokenBucketLimiter capacity ${LIMIT}, RedisStore default options${build === undefined ? '' : ` (build ${build})`}`,
    );
    console.log(table(['scenario', 'client', `admitted (${runs} runs)`, 'limit', 'worst admitted/limit', 'decided by policy', 'Redis CPU µs / decision (median)'], rows));
    if (flag('stall', 'true') === 'false') return;
    const s = await stall(server, redis);
    console.log(`\nstall: redis-server SIGSTOPped for 2 s under one call every 2 ms, RedisStore default options`);
    console.log(table(['slowest decision in the stall', 'decided by Redis', 'decided by policy'], [[`${s.slowest.toFixed(1)} ms`, String(s.byRedis), String(s.byPolicy)]]));
  } finally {
    admin.disconnect();
    server.stop();
  }
}
