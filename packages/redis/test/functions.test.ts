/**
 * Redis Functions (src/lua/library.ts, src/transport/remote.ts): on a server that has them, the
 * one-call decisions and the batches go as FCALL of ratekeeper's library, loaded once by the store
 * (the first call, which finds no function, goes as its script meanwhile); decisions are the memory
 * store's either way. Where the library is gone (FUNCTION FLUSH, a restart) it is loaded again and no
 * call fails. A server without functions (FCALL and FUNCTION renamed away, as Redis 6 answers them:
 * an unknown command) is decided by EVALSHA after one FCALL finds it so; so is a server that refuses
 * to load the library (FUNCTION renamed away alone). Counted with INFO commandstats on redis-servers
 * of the test's own, with the store's default options but the deny cache off (a repeated denial must
 * reach Redis) and a fixed fallback divisor (no peer-count beat, a script of its own, among the counts).
 */
import { type Decision, FixedWindowLimiter, ManualClock, MemoryStore, TokenBucketLimiter } from '@ratekeeper/core';
import type { FailureInfo } from '@ratekeeper/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const servers: RedisServer[] = [];

afterAll(async () => {
  await closeAll();
  for (const server of servers) await server.stop();
});

async function serverWith(args: readonly string[] = []): Promise<RedisServer> {
  const server = await startServer(args);
  servers.push(server);
  return server;
}

/** calls reads how many times a server ran each command, and how many of them it refused. */
function calls(server: RedisServer): Record<string, { calls: number; failed: number }> {
  const stats = server.cli('INFO', 'commandstats');
  return Object.fromEntries(
    [...stats.matchAll(/cmdstat_([\w|]+):calls=(\d+),.*?rejected_calls=(\d+),failed_calls=(\d+)/g)].map((m) => [
      m[1] as string,
      { calls: Number(m[2]), failed: Number(m[3]) + Number(m[4]) },
    ]),
  );
}

/** decideSome makes the same 12 decisions on a store over `server` and on the memory store, and answers both. */
async function decideSome(server: RedisServer, prefix: string, failures: FailureInfo[] = [], client = ioredis(server.port)) {
  const clock = new ManualClock(1_700_000_000_000);
  const store = new RedisStore({ client, time: 'client', prefix, denyCache: false, fallbackDivisor: 1 });
  store.on('failure', (info) => failures.push(info));
  const make = (on: RedisStore | MemoryStore) => [
    new TokenBucketLimiter({ store: on, clock, capacity: 3, refillPerSecond: 1, name: 'tb' }),
    new FixedWindowLimiter({ store: on, clock, limit: 2, windowMs: 60_000, name: 'fw' }),
  ];
  const onRedis = make(store);
  const onMemory = make(new MemoryStore());
  const figures = (d: Decision) => [d.allowed, d.remaining, d.retryAfterMs, d.resetAfterMs, d.failure];
  const got: unknown[] = [];
  const want: unknown[] = [];
  for (let round = 0; round < 3; round++) {
    // One call alone (the one-call function), then three at once (a batch).
    for (const [i, limiter] of onRedis.entries()) {
      got.push(figures(await limiter.consume('k')));
      got.push(...(await Promise.all([limiter.consume('k'), limiter.consume('j'), limiter.consume('k')])).map(figures));
      const memory = onMemory[i] as (typeof onMemory)[number];
      want.push(figures(memory.consume('k') as Decision), ...[memory.consume('k'), memory.consume('j'), memory.consume('k')].map((d) => figures(d as Decision)));
    }
    clock.advance(400);
  }
  return { got, want };
}

describeRedis('Redis Functions', () => {
  describe('on a server that has them', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await serverWith();
    });

    it('decides by FCALL of a library it loads once, as the memory store decides', async () => {
      const failures: FailureInfo[] = [];
      const { got, want } = await decideSome(server, 'f1:', failures);
      expect(got).toEqual(want);
      expect(failures).toEqual([]);
      const seen = calls(server);
      // The first call found no function (went as its script), then every call was a function.
      expect(seen['function|load']).toEqual({ calls: 1, failed: 0 });
      expect(seen['fcall']?.failed).toBe(1);
      expect(seen['fcall']?.calls).toBeGreaterThan(10);
      expect(seen['evalsha']).toBeUndefined();
      expect(server.cli('FUNCTION', 'LIST')).toMatch(/ratekeeper_[0-9a-f]{12}/);
    });

    it('loads the library again after FUNCTION FLUSH, failing no call', async () => {
      server.cli('FUNCTION', 'FLUSH');
      const before = calls(server);
      const failures: FailureInfo[] = [];
      const { got, want } = await decideSome(server, 'f2:', failures);
      expect(got).toEqual(want);
      expect(failures).toEqual([]);
      const after = calls(server);
      expect((after['function|load']?.calls ?? 0) - (before['function|load']?.calls ?? 0)).toBe(1);
      expect(server.cli('FUNCTION', 'LIST')).toMatch(/ratekeeper_[0-9a-f]{12}/);
    });
  });

  it('decides by EVALSHA on a server without functions, after one FCALL finds it so', async () => {
    const server = await serverWith(['--rename-command', 'FCALL', '', '--rename-command', 'FUNCTION', '']);
    const client = ioredis(server.port);
    await client.ping(); // connected: what the client says at connection (CLIENT SETINFO, unknown to 7.0) is counted before
    const errors = () => Number(/errorstat_ERR:count=(\d+)/.exec(server.cli('INFO', 'errorstats'))?.[1] ?? 0);
    const before = errors();
    const failures: FailureInfo[] = [];
    const { got, want } = await decideSome(server, 'f3:', failures, client);
    expect(got).toEqual(want);
    expect(failures).toEqual([]);
    const seen = calls(server);
    expect(seen['evalsha']?.calls).toBeGreaterThan(10);
    expect(seen['fcall']).toBeUndefined(); // renamed away: Redis never ran one
    // One FCALL found it so (an unknown command: an ERR reply); functions stayed off after it.
    expect(errors() - before).toBe(1);
  });

  it('decides by EVALSHA on a server that refuses to load the library', async () => {
    const server = await serverWith(['--rename-command', 'FUNCTION', '']);
    const failures: FailureInfo[] = [];
    const { got, want } = await decideSome(server, 'f4:', failures);
    expect(got).toEqual(want);
    expect(failures).toEqual([]);
    const seen = calls(server);
    // FCALLs until the refused load came back (each found no function and went as its script), then none.
    const fcalls = seen['fcall']?.calls ?? 0;
    expect(seen['fcall']?.failed).toBe(fcalls);
    expect(fcalls).toBeLessThanOrEqual(2);
    expect(seen['evalsha']?.calls).toBeGreaterThan(10);
  });
});
