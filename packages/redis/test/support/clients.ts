/**
 * Client factories for the tests: ioredis and node-redis connected to a loopback port, both with a
 * fast, fixed reconnect (50 ms) so recovery tests measure the store rather than a client's growing
 * backoff, and with an 'error' listener, which node-redis requires and ioredis otherwise logs.
 * closeAll() disconnects every client made here.
 */
import { Redis, Cluster } from 'ioredis';
import { createClient, createCluster } from 'redis';

export type ClientKind = 'ioredis' | 'node-redis';
export const CLIENT_KINDS: readonly ClientKind[] = ['ioredis', 'node-redis'];

type Closable = { close(): Promise<void> | void };
const open: Closable[] = [];

export function ioredis(port: number, options: Record<string, unknown> = {}): Redis {
  const client = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 50, ...options });
  client.on('error', () => {});
  open.push({ close: () => client.disconnect() });
  return client;
}

export async function nodeRedis(port: number): Promise<ReturnType<typeof createClient>> {
  const client = createClient({ socket: { port, host: '127.0.0.1', reconnectStrategy: () => 50 } });
  client.on('error', () => {});
  open.push({ close: () => client.destroy() });
  await client.connect();
  return client;
}

/** client makes a connected client of `kind`. */
export async function client(kind: ClientKind, port: number): Promise<Redis | ReturnType<typeof createClient>> {
  if (kind === 'ioredis') {
    const c = ioredis(port);
    await c.ping();
    return c;
  }
  return nodeRedis(port);
}

export function ioredisCluster(ports: readonly number[]): Cluster {
  const cluster = new Cluster(ports.map((port) => ({ host: '127.0.0.1', port })));
  cluster.on('error', () => {});
  open.push({ close: () => cluster.disconnect() });
  return cluster;
}

export async function nodeRedisCluster(ports: readonly number[]): Promise<ReturnType<typeof createCluster>> {
  const cluster = createCluster({ rootNodes: ports.map((port) => ({ socket: { host: '127.0.0.1', port } })) });
  cluster.on('error', () => {});
  open.push({ close: () => cluster.destroy() });
  await cluster.connect();
  return cluster;
}

export async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((c) => c.close()));
}
