/**
 * A refund sent while Redis is away is owed, not lost: a RedisStore with its DEFAULT options spends a
 * fixed window's whole limit on Redis, Redis then answers nothing (the test kit's fault proxy holds
 * the connection: a consume waits timeoutMs and opens the breaker), and the application refunds every
 * unit while the breaker is open. Those refunds are never sent; each goes to the fallback and is owed
 * to Redis. Once Redis answers again they are sent, and the key admits the whole limit again on Redis.
 * A refund that may have run (a timeout) is not owed: sent twice, it would give back twice.
 *
 * The same behind a BanLimiter, whose refund is a script of its own. The mutant build that does not
 * owe them (the store before this release) leaves the key full on Redis.
 */
import { BanLimiter, FixedWindowLimiter } from '@ratekeeper/core';
import { type FaultProxy, faultProxy } from '@ratekeeper/store-contract';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RedisStore as Store } from '../src/index.js';
import { client, closeAll } from './support/clients.js';
import { mutantBuild } from './support/mutant-builds.js';
import { type RedisServer, startServer, waitFor } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const LIMIT = 5;
const DIST = new URL('../dist/esm/index.js', import.meta.url).href;

let server: RedisServer;
const proxies: FaultProxy[] = [];
let runs = 0;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await closeAll();
  for (const proxy of proxies) await proxy.close();
  await server?.stop();
});

/** refundedWhileAway runs the scenario on `build` (`banned`: behind a BanLimiter) and answers how many of LIMIT + 1 consumes Redis admits after it. */
async function refundedWhileAway(build: string, banned = false): Promise<number> {
  const { RedisStore } = (await import(build)) as { RedisStore: typeof Store };
  const proxy = await faultProxy('127.0.0.1', server.port);
  proxies.push(proxy);
  const store = new RedisStore({ client: await client('ioredis', proxy.port) });
  const reasons: string[] = [];
  store.on('failure', (info) => reasons.push(info.reason));
  const window = new FixedWindowLimiter({ limit: LIMIT, windowMs: 3_600_000, name: `owed-${runs++}`, store });
  const limiter = banned ? new BanLimiter({ limiter: window, banMs: 60_000 }) : window;
  const spent = await Promise.all(Array.from({ length: LIMIT }, () => limiter.consume('k')));
  expect(spent.map((d) => [d.allowed, d.failure])).toEqual(Array(LIMIT).fill([true, undefined]));

  proxy.blackhole();
  expect((await limiter.peek('k')).failure).toBe('fallback'); // waited timeoutMs: the breaker is open
  for (let i = 0; i < LIMIT; i++) await limiter.refund('k');
  expect(reasons.filter((r) => r === 'unavailable').length).toBe(LIMIT);

  proxy.heal();
  await waitFor('the store to decide on Redis again', async () => (await limiter.peek('other')).failure === undefined, 5000);
  const after = await Promise.all(Array.from({ length: LIMIT + 1 }, () => limiter.consume('k')));
  expect(after.filter((d) => d.failure !== undefined)).toEqual([]);
  return after.filter((d) => d.allowed).length;
}

describeRedis('refunds sent while Redis is away', () => {
  it(`are owed and sent once Redis answers: the key admits its ${LIMIT} again, exactly`, async () => {
    expect(await refundedWhileAway(DIST)).toBe(LIMIT);
  });

  it(`are owed behind a ban too (a BanLimiter's refund script): the key admits its ${LIMIT} again, exactly`, async () => {
    expect(await refundedWhileAway(DIST, true)).toBe(LIMIT);
  });

  it('catches the build that does not owe them: the key stays full on Redis', async () => {
    expect(await refundedWhileAway(mutantBuild('refund-not-owed'))).toBe(0);
  }, 60_000);
});
