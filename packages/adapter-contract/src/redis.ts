/**
 * The two stores the suites that must hold everywhere run on: the memory store, and a RedisStore on a
 * real redis-server (one per test file, started on a free loopback port by @ratekeeper/redis's test
 * support, which kills it when the process exits; stopped after the file). Each Redis store has its
 * own connection and key prefix and default options, but for the limiter's clock (`time: 'client'`),
 * so the suites' ManualClock decides on Redis as on memory. Without redis-server the Redis cases skip
 * with a warning, except in CI, where they fail.
 */
import { execFileSync } from 'node:child_process';
import { MemoryStore, type Store } from '@ratekeeper/core';
import { type FailureInfo, RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
// Loaded when a suite first needs a server: every adapter test file imports this package.
import type { RedisServer } from '../../redis/test/support/redis-server.js';

/** StoreName names where a suite's limiter keeps its state. */
export type StoreName = 'memory' | 'Redis';
export const STORES: readonly StoreName[] = ['memory', 'Redis'];

/** runsOn tells whether a suite runs on `name` here (Redis: a redis-server is installed, or CI, which then fails without one). */
export function runsOn(name: StoreName): boolean {
  if (name === 'memory' || installed() || process.env['CI'] === 'true') return true;
  console.warn('*** redis-server not found: the adapter suites on Redis are SKIPPED (CI fails instead). ***');
  return false;
}

function installed(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let server: Promise<RedisServer> | undefined;
const clients: Redis[] = [];
let prefixes = 0;

/** Made is a store and the failures it reported (a suite requires none). */
export interface Made<S> {
  readonly store: S;
  readonly failures: FailureInfo[];
}

/**
 * storeOn makes a fresh store of `name`: `memory` (or its subclass `memoryKind`), or on Redis a
 * RedisStore (or its subclass `redisKind`, a mutant) with its own connection and prefix.
 */
export async function storeOn(
  name: StoreName,
  memoryKind: new () => MemoryStore = MemoryStore,
  redisKind: new (options: ConstructorParameters<typeof RedisStore>[0]) => RedisStore = RedisStore,
): Promise<Made<Store>> {
  const failures: FailureInfo[] = [];
  if (name === 'memory') return { store: new memoryKind(), failures };
  server ??= import('../../redis/test/support/redis-server.js').then((support) => support.startServer());
  const { port } = await server;
  const client = new Redis({ port, host: '127.0.0.1' });
  clients.push(client);
  await client.ping();
  const store = new redisKind({ client, time: 'client', prefix: `suite${prefixes++}:` });
  store.on('failure', (info) => void failures.push(info));
  return { store, failures };
}

/** stopRedis closes every connection and stops the file's redis-server (run it after the suites). */
export async function stopRedis(): Promise<void> {
  for (const client of clients.splice(0)) client.disconnect();
  const running = server;
  server = undefined;
  if (running !== undefined) await (await running).stop();
}
