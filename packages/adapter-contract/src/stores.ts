/**
 * The stores the work suites run on: the memory store, and RedisStore with default options over
 * ioredis, on a real redis-server this module starts on a free loopback port (persistence off) the
 * first time a suite asks for it, and kills when the test process exits. Redis is warmed up (scripts
 * loaded, one decision made) before a suite times anything on it, so a cold start is no part of a
 * measurement. Without redis-server on the PATH the Redis cases skip with a warning, except in CI
 * (CI=true), where they fail.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { ConcurrencyLimiter, type Store } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';

export interface StoreCase {
  readonly name: 'memory' | 'Redis';
  /** The store limiters are built on; undefined for core's default memory store. */
  store(): Promise<Store<'async'> | undefined>;
}

function onPath(binary: string): boolean {
  try {
    execFileSync(binary, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const hasRedis = onPath('redis-server');
if (!hasRedis) {
  if (process.env['CI'] === 'true') throw new Error('redis-server is not on the PATH: the adapter work suites need it in CI');
  console.warn('\n*** redis-server not found: the Redis cases of the adapter work suites are SKIPPED (CI fails instead). ***\n');
}

let redis: Promise<RedisStore> | undefined;
let server: ChildProcess | undefined;
let client: Redis | undefined;
process.on('exit', () => server?.kill('SIGKILL'));
afterAll(() => {
  client?.disconnect();
  server?.kill('SIGKILL');
});

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => (socket.destroy(), resolve(String(data).startsWith('+PONG'))));
    socket.once('error', () => resolve(false));
  });

async function startRedis(): Promise<RedisStore> {
  const port = await freePort();
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  server.unref();
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  client = new Redis({ port, host: '127.0.0.1' });
  client.on('error', () => {});
  const store = new RedisStore({ client });
  // Warm-up: connect, load the lease scripts, make one decision and give it back.
  const warm = new ConcurrencyLimiter<'async'>({ limit: 1, name: 'warm-up', store });
  await warm.consume('warm-up');
  await warm.release('warm-up');
  return store;
}

const CASES: readonly StoreCase[] = [
  { name: 'memory', store: async () => undefined },
  { name: 'Redis', store: () => (redis ??= startRedis()) },
];

/** storeCases: the memory store, and Redis when redis-server is on the PATH. */
export const storeCases = (): readonly StoreCase[] => (hasRedis ? CASES : CASES.slice(0, 1));
