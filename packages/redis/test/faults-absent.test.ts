/**
 * Redis absent when the application starts: the clients point at a port where nothing listens yet.
 * The store must serve at once by its policy (each decision within timeoutMs + 50 ms), crash nothing
 * and leave no unhandled rejection (the global guard checks); once redis-server starts on that port,
 * decisions come from Redis again within 1 s. The naive mutant, on its own absent server, must hold
 * its requests instead.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FailureInfo, RedisStore } from '../src/index.js';
import { NaiveStore } from './mutants/naive-store.js';
import { Load, type Target } from './support/load.js';
import { RedisServer, freePort, waitFor } from './support/redis-server.js';
import { report } from './support/report.js';
import { describeRedis } from './support/requirements.js';

const TIMEOUT_MS = 50;
const BOUND_MS = TIMEOUT_MS + 50;

let server: RedisServer;
let mutantServer: RedisServer;
let load: Load;
let startingAt = 0;
let startedAt = 0;
const events: FailureInfo[] = [];
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  server = new RedisServer(await freePort());
  mutantServer = new RedisServer(await freePort());
  const io = new Redis({ port: server.port, host: '127.0.0.1', retryStrategy: () => 50 });
  io.on('error', () => {});
  const nr = createClient({ socket: { port: server.port, host: '127.0.0.1', reconnectStrategy: () => 50 } });
  nr.on('error', () => {});
  void nr.connect().catch(() => {});
  const naiveClient = new Redis({ port: mutantServer.port, host: '127.0.0.1', retryStrategy: () => 50 });
  naiveClient.on('error', () => {});
  closers.push(
    () => io.disconnect(),
    () => nr.destroy(),
    () => naiveClient.disconnect(),
  );

  const targets: Target[] = [];
  for (const [name, client] of [
    ['ioredis', io],
    ['node-redis', nr],
  ] as const) {
    const store = new RedisStore({ client, timeoutMs: TIMEOUT_MS });
    store.on('failure', (info) => events.push(info));
    const limiter = new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 100, store });
    targets.push({ name, consume: (key) => limiter.consume(key) });
  }
  const naive = new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 100, store: new NaiveStore(naiveClient, 'rk:') });
  targets.push({ name: 'naive', consume: (key) => naive.consume(key) });

  load = new Load(targets);
  load.start();
  await waitFor('500 ms of load without Redis', () => load.samples('ioredis').length >= 100);
  startingAt = performance.now();
  await Promise.all([server.start(), mutantServer.start()]);
  startedAt = performance.now();
  await waitFor('1.3 s of load with Redis', () => performance.now() - startedAt >= 1300, 3000);
  await load.stop();
});

afterAll(async () => {
  await load?.stop();
  for (const close of closers) close();
  await server?.stop();
  await mutantServer?.stop();
});

describeRedis('Redis absent at startup, started later', () => {
  for (const name of ['ioredis', 'node-redis']) {
    it(`serves by the fallback at once, each decision within ${BOUND_MS} ms (${name})`, () => {
      const samples = load.samples(name);
      expect(samples.filter((s) => s.rejected !== undefined)).toEqual([]);
      report(
        'absent',
        name,
        'slowest store latency',
        load.slowestStore(name).toFixed(1),
        'raw',
        Math.max(...samples.map((s) => s.end - s.start)).toFixed(1),
        'worst loop stall',
        load.lag.worst.toFixed(1),
      );
      expect(load.slowestStore(name)).toBeLessThanOrEqual(BOUND_MS);
      const before = samples.filter((s) => s.end <= startingAt);
      expect(before.length).toBeGreaterThan(50);
      expect(before.filter((s) => s.decision?.failure !== 'fallback')).toEqual([]);
    });

    it(`decides on Redis within 1 s of its start (${name})`, () => {
      const after = load.samples(name).filter((s) => s.start >= startedAt + 1000);
      expect(after.length).toBeGreaterThan(20);
      expect(after.filter((s) => s.decision?.failure !== undefined)).toEqual([]);
    });
  }

  it('reports the outage as refused connections and unavailability, never as a timeout or a reply', () => {
    const reasons = new Set(events.map((e) => e.reason));
    // Which of the two a decision names depends on the race between the client's refusal event and the
    // breaker (a loaded machine sees only one): each is a refused connection, neither is waited for.
    expect(reasons.size).toBeGreaterThan(0);
    expect([...reasons].filter((r) => r !== 'connection' && r !== 'unavailable')).toEqual([]);
  });

  it('catches the naive mutant holding its requests until Redis starts', () => {
    expect(load.slowestStore('naive')).toBeGreaterThan(300);
  });
});
