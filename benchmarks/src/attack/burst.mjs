// Attack: a burst on one key against a healthy Redis, and a Redis that stops answering (issue 7, item 1).
//
// burst: 8 processes, each with its own connection and a TokenBucketLimiter({ capacity: 500 }) on
// `new RedisStore({ client })` with default options, fire 2,000 consume calls at once on one key
// after a barrier. The right answer is exactly 500 admitted; anything more is over-admission.
// stall: one process keeps deciding (one call every 2 ms over 50 keys) while the redis-server is
// SIGSTOPped for 2 s; it prints the slowest decision during the stall and how they were decided.
import { fork } from 'node:child_process';
import { TokenBucketLimiter } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';
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

async function burst(port, client, run) {
  const children = Array.from({ length: WORKERS }, () => fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  try {
    const key = `burst-${client}-${run}`;
    await Promise.all(children.map((c) => ask(c, { type: 'setup', port, client, key, limit: LIMIT, requests: REQUESTS }, 'ready')));
    const reports = await Promise.all(children.map((c) => ask(c, { type: 'go' }, 'done')));
    return { admitted: reports.reduce((s, r) => s + r.admitted, 0), byPolicy: reports.reduce((s, r) => s + r.byPolicy, 0) };
  } finally {
    for (const c of children) if (c.connected) c.send({ type: 'exit' });
  }
}

async function stall(server) {
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
  const runs = Number(args.find((a) => a.startsWith('--attack-runs='))?.split('=')[1] ?? 3);
  const server = await startRedis();
  try {
    const rows = [];
    for (const client of ['ioredis', 'node-redis']) {
      for (let r = 0; r < runs; r++) {
        const { admitted, byPolicy } = await burst(server.port, client, r);
        rows.push([client, String(r + 1), String(admitted), String(LIMIT), `${(admitted / LIMIT).toFixed(2)}×`, String(byPolicy)]);
      }
    }
    console.log(`burst: ${WORKERS} processes × ${REQUESTS} consume at once on one key, TokenBucketLimiter capacity ${LIMIT}, RedisStore default options`);
    console.log(table(['client', 'run', 'admitted', 'limit', 'admitted/limit', 'decided by policy'], rows));
    const s = await stall(server);
    console.log(`\nstall: redis-server SIGSTOPped for 2 s under one call every 2 ms, RedisStore default options`);
    console.log(table(['slowest decision in the stall', 'decided by Redis', 'decided by policy'], [[`${s.slowest.toFixed(1)} ms`, String(s.byRedis), String(s.byPolicy)]]));
  } finally {
    server.stop();
  }
}
