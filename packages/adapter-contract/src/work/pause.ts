/**
 * Concurrency leases survive a short Redis outage, through a real app of the driver's framework over
 * real HTTP: 10 requests hold the 10 leases of a ConcurrencyLimiter on a RedisStore with its DEFAULT
 * options; Redis stops answering (SIGSTOP, long enough for the store to notice); the 10 handlers
 * answer meanwhile, so their releases cannot run. Once Redis is back the store sends them again, and
 * the key admits exactly 10 new requests (the 11th is a 429), not 0–2 until the leases' TTL (30 s).
 *
 * The check runs on the real RedisStore and on the mutant build that drops a release Redis could not
 * run (an earlier release's store, packages/redis/test/support/mutant-builds.ts), which it must
 * catch. Each run starts its own redis-server on a free loopback port (the pause would disturb any
 * other suite's server) and stops it after.
 */
import { ConcurrencyLimiter } from '@ratekeeper/core';
import type { RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Driver } from '../driver.js';
import { eventually, serveWork } from './serve-work.js';
import { hasRedis } from '../stores.js';

const LIMIT = 10;
const PAUSE_MS = 1500;

type Build = { RedisStore: typeof RedisStore };

/** The mutant build's URL, compiled once per test process (tsc takes seconds). */
let mutant: string | undefined;

/**
 * admittedAfterPause holds LIMIT leases through the driver's app, answers their requests while Redis
 * is stopped, resumes Redis PAUSE_MS after it stopped, and answers how many of LIMIT + 1 new requests
 * the key admits once the store decides on Redis again.
 */
export async function admittedAfterPause<F>(driver: Driver<F>, build: Build): Promise<number> {
  const support = await import('../../../redis/test/support/redis-server.js');
  const server = await support.startServer();
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  client.on('error', () => {});
  try {
    const store = new build.RedisStore({ client });
    store.on('failure', () => {});
    const limiter = new ConcurrencyLimiter<'async'>({ limit: LIMIT, name: 'paused', store });
    expect((await limiter.peek('warm-up')).failure, 'the store decides on Redis before the pause').toBeUndefined();
    const gates = new Map<string, () => void>();
    const app = await serveWork(driver, { limiter, key: () => 'k' }, (id) => new Promise<void>((open) => gates.set(id, open)));
    try {
      const held = await Promise.all(Array.from({ length: LIMIT }, (_, i) => app.send(`held${i}`)));
      await eventually('every lease held by a working handler', () => gates.size === LIMIT);

      const stoppedAt = performance.now();
      server.pause();
      await eventually('the store to notice the stopped Redis', async () => (await limiter.peek('other')).failure !== undefined, 10_000);
      for (const [id, open] of gates) if (id.startsWith('held')) open();
      expect(await Promise.all(held.map((s) => s.status)), 'the held requests answered while Redis was stopped').toEqual(Array(LIMIT).fill(200));
      await eventually('the end of the pause', () => performance.now() - stoppedAt >= PAUSE_MS, PAUSE_MS + 1000);
      server.resume();
      await eventually('the store to decide on Redis again', async () => (await limiter.peek('probe')).failure === undefined, 10_000);
      // The kept releases go on recovery; a mutant has none to send. Either way, give them the turn.
      await eventually('the kept releases to reach Redis', () => (limiter.binding as unknown as { unreleased?: number }).unreleased === 0, 5000).catch(() => {});

      gates.clear();
      const after = await Promise.all(Array.from({ length: LIMIT + 1 }, (_, i) => app.send(`after${i}`)));
      const refused: number[] = [];
      for (const s of after) void s.status.then((status) => status === 429 && refused.push(status));
      await eventually('every new request working or refused', () => gates.size + refused.length === LIMIT + 1);
      const admitted = gates.size;
      for (const open of gates.values()) open();
      await Promise.all(after.map((s) => s.status));
      return admitted;
    } finally {
      for (const open of gates.values()) open(); // the app itself is closed after the test (support.ts)
    }
  } finally {
    client.disconnect();
    await server.stop();
  }
}

/** pauseSuite runs the check on each driver: the real RedisStore admits exactly 10; the mutant fewer. */
export function pauseSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    (hasRedis ? describe : describe.skip)(`${driver.name}, concurrency leases on Redis through a 1.5 s SIGSTOP`, () => {
      it('gives back the releases Redis missed once it answers again: the key admits exactly 10 new requests, the 11th is a 429', async () => {
        expect(await admittedAfterPause(driver, (await import('@ratekeeper/redis')) as Build)).toBe(LIMIT);
      }, 30_000);

      it('the same check catches a store that drops a release Redis could not run (mutant)', async () => {
        const { mutantBuild } = await import('../../../redis/test/support/mutant-builds.js');
        mutant ??= mutantBuild('dropped-releases');
        expect(await admittedAfterPause(driver, (await import(mutant)) as Build)).toBeLessThan(LIMIT);
      }, 120_000);
    });
  }
}
