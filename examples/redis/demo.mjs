/**
 * The Redis example's demo: starts a redis-server (or uses REDIS_URL), two example servers A and B
 * on free ports, and sends 16 requests alternating between them from one client. The limit is 10
 * per client in a burst, shared through Redis: exactly 10 are admitted in total, whichever server
 * answered, and the rest get 429 with Retry-After. Exits 0 only if that is what happened; stops
 * everything it started.
 */
import { startRedis, startServer, stop } from './processes.mjs';

const REQUESTS = 16;
const LIMIT = 10;

const redis = process.env.REDIS_URL ? { url: process.env.REDIS_URL } : await startRedis();
const servers = await Promise.all([startServer('A', redis.url), startServer('B', redis.url)]);
console.log(`redis ${redis.url}; server A ${servers[0].url}, server B ${servers[1].url}; limit ${LIMIT} per client, shared\n`);
console.log('#   server  status  RateLimit              Retry-After');

let admitted = 0;
for (let i = 0; i < REQUESTS; i++) {
  const server = servers[i % 2];
  const res = await fetch(`${server.url}/`);
  await res.arrayBuffer();
  if (res.status === 200) admitted++;
  const retry = res.headers.get('retry-after') ?? '';
  console.log(`${String(i + 1).padEnd(4)}${server.name.padEnd(8)}${String(res.status).padEnd(8)}${(res.headers.get('ratelimit') ?? '').padEnd(23)}${retry}`);
}

console.log(`\nadmitted ${admitted} of ${REQUESTS} across both servers (limit ${LIMIT})`);
await Promise.all(servers.map((s) => stop(s.child)));
if (redis.child) await stop(redis.child);
process.exitCode = admitted === LIMIT ? 0 : 1;
