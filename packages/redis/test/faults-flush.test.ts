/**
 * SCRIPT FLUSH and FUNCTION FLUSH under load: while requests run 50 at a time on one key (limit 500,
 * 3,000 requests), another connection flushes the script cache and the function libraries every 20
 * ms. Each NOSCRIPT, and each call that finds its function missing, is answered by one EVAL of the
 * script (the library loaded again beside), so no failure is ever reported and admission stays
 * exact: 500. The mutant that never reloads (EVAL and FUNCTION LOAD refused), on a server of its own
 * under the same flushing, must report failures.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FailureInfo, RedisStore } from '../src/index.js';
import { evalshaOnly } from './mutants/evalsha-only-client.js';
import { CLIENT_KINDS, client, closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';

const LIMIT = 500;
const REQUESTS = 3000;
const IN_FLIGHT = 50;

let server: RedisServer;
let mutantServer: RedisServer;

beforeAll(async () => {
  server = await startServer();
  mutantServer = await startServer();
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
  await mutantServer?.stop();
});

/** underFlushing runs the requests in waves of IN_FLIGHT while `flusher` flushes scripts every 20 ms. */
async function underFlushing(store: RedisStore, flusher: Redis, key: string): Promise<{ admitted: number; failures: FailureInfo[] }> {
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const limiter = new FixedWindowLimiter({ limit: LIMIT, windowMs: 1e12, store });
  const flushing = setInterval(() => {
    void flusher.script('FLUSH').catch(() => {});
    void flusher.call('FUNCTION', 'FLUSH').catch(() => {});
  }, 20);
  let admitted = 0;
  try {
    for (let sent = 0; sent < REQUESTS; sent += IN_FLIGHT) {
      const wave = await Promise.all(Array.from({ length: IN_FLIGHT }, () => limiter.consume(key)));
      admitted += wave.filter((d) => d.allowed).length;
    }
  } finally {
    clearInterval(flushing);
  }
  return { admitted, failures };
}

function evalCalls(s: RedisServer): number {
  return Number(/cmdstat_eval:calls=(\d+)/.exec(s.cli('INFO', 'commandstats'))?.[1] ?? 0);
}

describeRedis('SCRIPT FLUSH every 20 ms under load', () => {
  for (const kind of CLIENT_KINDS) {
    it(`reports no failure and admits exactly 500 through ${kind}`, async () => {
      const before = evalCalls(server);
      // The deny cache would answer most requests past the limit without a script call at all.
      const store = new RedisStore({ client: await client(kind, server.port), timeoutMs: 1000, onFailure: 'closed', denyCache: false });
      const { admitted, failures } = await underFlushing(store, ioredis(server.port), `flush-${kind}`);
      expect(failures).toEqual([]);
      expect(admitted).toBe(LIMIT);
      expect(evalCalls(server) - before).toBeGreaterThan(1);
    });
  }

  it('catches the mutant that never reloads its scripts', async () => {
    const store = new RedisStore({ client: evalshaOnly(ioredis(mutantServer.port)), timeoutMs: 1000, onFailure: 'closed' });
    const { failures } = await underFlushing(store, ioredis(mutantServer.port), 'flush-mutant');
    expect(failures.length).toBeGreaterThan(0);
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(ioredis(server.port))).toEqual([]);
  });
});
