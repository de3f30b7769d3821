// An outage that announces itself: Redis refusing connections, with the clients as the README makes
// them (ioredis `new Redis(url)`, its offline queue on; node-redis `createClient({ url })` with an
// 'error' listener and `connect()` called, its promise caught) and RedisStore's default options.
// Requests arrive at a steady rate (open loop) on a port where nothing listens, from the very first
// one; then redis-server starts on that port. Prints, per client, the decision latency over the outage
// (the very first decision's, p50, p99, max, how many above 50 ms) and how long after the server answered its first PING the
// decisions came from Redis again (the last fallback decision, and the first store decision).
//
//   node benchmarks/src/outage.mjs [--rate 100] [--seconds 3]
import { TokenBucketLimiter } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { quantile } from './lib/stats.mjs';
import { freePort, startRedis } from './redis/_server.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const RATE = arg('rate', 100);
const SECONDS = arg('seconds', 3);
const AFTER_MS = 2000;

const port = await freePort();
const url = `redis://127.0.0.1:${port}`;
const noop = () => {};

const io = new Redis(url);
io.on('error', noop); // ioredis only logs without one; the README's client logs the same refusals.
const nr = createClient({ url });
nr.on('error', noop);
nr.connect().catch(noop);

const contenders = [
  ['ioredis', io],
  ['node-redis', nr],
].map(([name, client]) => {
  const limiter = new TokenBucketLimiter({ capacity: 1_000_000, refillPerSecond: 1000, store: new RedisStore({ client }) });
  limiter.store.on?.('failure', noop);
  return { name, limiter, samples: [] };
});

function fire(at) {
  for (const c of contenders) {
    const start = performance.now();
    void c.limiter.consume(`user-${c.samples.length % 50}`).then((decision) => {
      c.samples.push({ start, end: performance.now(), failure: decision.failure });
    });
  }
  return at;
}

async function run(ms) {
  const every = 1000 / RATE;
  const began = performance.now();
  let next = began;
  while (performance.now() - began < ms) {
    fire(next);
    next += every;
    const wait = next - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

const outageStart = performance.now();
await run(SECONDS * 1000);
const outageEnd = performance.now();
const server = await startRedis(port);
const upAt = performance.now();
await run(AFTER_MS);
await new Promise((resolve) => setTimeout(resolve, 200));

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
console.log(`Redis refusing connections for ${SECONDS} s at ${RATE} requests/s per client, then started on the same port; RedisStore defaults (timeoutMs 1000)`);
console.log('client      | decisions | first ms | p50 ms | p99 ms | max ms | > 50 ms | fallback after up (ms) | first store decision after up (ms)');
for (const c of contenders) {
  const during = c.samples.filter((s) => s.start >= outageStart && s.start < outageEnd).sort((a, b) => a.start - b.start);
  const latencies = during.map((s) => s.end - s.start);
  const after = c.samples.filter((s) => s.start >= upAt);
  const lastFallback = Math.max(0, ...after.filter((s) => s.failure !== undefined).map((s) => s.start - upAt));
  const firstStore = Math.min(...after.filter((s) => s.failure === undefined).map((s) => s.end - upAt));
  console.log(
    `${c.name.padEnd(11)} | ${String(during.length).padStart(9)} | ${fmt(latencies[0]).padStart(8)} | ${fmt(quantile(latencies, 0.5)).padStart(6)} | ${fmt(quantile(latencies, 0.99)).padStart(6)} | ${fmt(Math.max(...latencies)).padStart(6)} | ${String(latencies.filter((l) => l > 50).length).padStart(7)} | ${fmt(lastFallback).padStart(22)} | ${fmt(firstStore).padStart(34)}`,
  );
}
io.disconnect();
await nr.destroy?.();
server.stop();
process.exit(0);
