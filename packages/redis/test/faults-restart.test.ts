/**
 * A crash: SIGKILL under steady load, a restart on the same port 1 s later, with an empty script
 * cache. While Redis is gone every decision arrives within timeoutMs + 50 ms by the fallback; once it
 * is back, decisions come from Redis again within 1 s, NOSCRIPT handled invisibly (EVAL reloads the
 * script: INFO commandstats counts it, and no failure is reported as a reply error). The mutant that
 * never reloads scripts (EVAL refused) runs through the same crash on a server of its own (the script
 * cache is per server, and the real stores would reload it for the mutant) and must never come back.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FailureInfo, RedisStore } from '../src/index.js';
import { evalshaOnly } from './mutants/evalsha-only-client.js';
import { CLIENT_KINDS, client, closeAll, ioredis } from './support/clients.js';
import { Load, type Target } from './support/load.js';
import { type RedisServer, startServer, waitFor } from './support/redis-server.js';
import { report } from './support/report.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';

const TIMEOUT_MS = 50;
const BOUND_MS = TIMEOUT_MS + 50;

let server: RedisServer;
let mutantServer: RedisServer;
const events = new Map<string, FailureInfo[]>();
let load: Load;
let killedAt = 0;
let restartingAt = 0;
let restartedAt = 0;

beforeAll(async () => {
  server = await startServer();
  mutantServer = await startServer();
  const targets: Target[] = [];
  const add = (name: string, store: RedisStore) => {
    events.set(name, []);
    store.on('failure', (info) => events.get(name)?.push(info));
    const limiter = new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 100, store });
    targets.push({ name, consume: (key) => limiter.consume(key) });
  };
  for (const kind of CLIENT_KINDS) add(kind, new RedisStore({ client: await client(kind, server.port), timeoutMs: TIMEOUT_MS }));
  add('evalsha-only', new RedisStore({ client: evalshaOnly(ioredis(mutantServer.port)), timeoutMs: TIMEOUT_MS, prefix: 'rk:m:' }));
  load = new Load(targets);
  load.start();
  await waitFor('warm load', () => load.samples('ioredis').filter((s) => s.end < Infinity).length >= 40);
  await Promise.all([server.kill(), mutantServer.kill()]);
  killedAt = performance.now();
  await waitFor('1 s of load without Redis', () => performance.now() - killedAt >= 1000, 2000);
  restartingAt = performance.now();
  await Promise.all([server.start(), mutantServer.start()]);
  restartedAt = performance.now();
  await waitFor('1.5 s of load after the restart', () => performance.now() - restartedAt >= 1500, 3000);
  await load.stop();
});

afterAll(async () => {
  await load?.stop();
  await closeAll();
  await server?.stop();
  await mutantServer?.stop();
});

describeRedis('Redis killed (SIGKILL) and restarted on the same port under load', () => {
  for (const kind of CLIENT_KINDS) {
    it(`answers every decision within ${BOUND_MS} ms through ${kind}, by the fallback while Redis is gone`, () => {
      const samples = load.samples(kind);
      expect(samples.filter((s) => s.rejected !== undefined)).toEqual([]);
      report(
        'restart',
        kind,
        'slowest store latency',
        load.slowestStore(kind).toFixed(1),
        'raw',
        Math.max(...samples.map((s) => s.end - s.start)).toFixed(1),
        'worst loop stall',
        load.lag.worst.toFixed(1),
      );
      expect(load.slowestStore(kind)).toBeLessThanOrEqual(BOUND_MS);
      const down = samples.filter((s) => s.start >= killedAt && s.end <= restartingAt);
      expect(down.length).toBeGreaterThan(100);
      expect(down.filter((s) => s.decision?.failure !== 'fallback')).toEqual([]);
    });

    it(`decides on Redis again within 1 s of the restart, NOSCRIPT handled (${kind})`, () => {
      const after = load.samples(kind).filter((s) => s.start >= restartedAt + 1000);
      expect(after.length).toBeGreaterThan(50);
      expect(after.filter((s) => s.decision?.failure !== undefined)).toEqual([]);
      expect(events.get(kind)?.filter((i) => i.reason === 'reply')).toEqual([]);
    });
  }

  it('reloads the scripts with EVAL after the restart', () => {
    expect(server.cli('INFO', 'commandstats')).toMatch(/cmdstat_eval:calls=[1-9]/);
  });

  it('catches the mutant that never reloads its scripts', () => {
    const after = load.samples('evalsha-only').filter((s) => s.start >= restartedAt + 1000);
    expect(after.length).toBeGreaterThan(50);
    expect(after.every((s) => s.decision?.failure === 'fallback')).toBe(true);
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(ioredis(server.port))).toEqual([]);
  });
});
