/**
 * A process that takes concurrency leases and then does nothing until it is killed: the crashed
 * process of test/concurrency.test.ts. argv: port, key, limit, leaseTtlMs, and the mode: 'renewing' (the
 * real store) or 'forever' (the mutant: lease members written with no expiry).
 * It takes `limit` leases on the built @ratekeeper/redis, prints the lease members' expiry as
 * `held <n>`, and stays alive (its renewal timer is unref'd, so a plain interval keeps it up). Plain
 * JavaScript, so that it starts without a TypeScript loader.
 */
import { ConcurrencyLimiter } from '@ratekeeper/core';
import { Redis } from 'ioredis';
import { RedisStore } from '../../dist/esm/index.js';

const [port, key, limit, leaseTtlMs, mode] = process.argv.slice(2);
const client = new Redis({ port: Number(port), host: '127.0.0.1' });
client.on('error', () => {});
const store = new RedisStore({ client, leaseTtlMs: Number(leaseTtlMs), timeoutMs: Math.floor(Number(leaseTtlMs) / 3) });
const limiter = new ConcurrencyLimiter({ limit: Number(limit), name: 'crash', store });
let held = 0;
if (mode === 'forever') {
  // The mutant: leases written with no expiry, as a counter without a TTL would keep them.
  for (let i = 0; i < Number(limit); i++) held += await client.zadd(`rk:crash:{${key}}`, '+inf', `forever:${i}`);
} else for (let i = 0; i < Number(limit); i++) if ((await limiter.consume(key)).allowed) held++;
process.stdout.write(`held ${held}\n`);
setInterval(() => {}, 1 << 30);
