/**
 * Concurrency leases survive a short outage: 10 requests hold the 10 leases of a key on a RedisStore
 * with its DEFAULT options, Redis stops answering (SIGSTOP, long enough for the store to notice and
 * open its breaker) or restarts from its append-only file, and the 10 finish meanwhile: their releases
 * cannot run. Each is reported once and sent again until Redis runs it, so once Redis is back the key
 * admits 10 new requests, exactly, and not 0–2 until the leases' TTL (30 s) has passed.
 *
 * The mutant build drops a release Redis could not run (the store before issue 16): the same check
 * must find the key still full.
 */
import { ConcurrencyLimiter } from '@ratekeeper/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FailureInfo, RedisStore as Store } from '../src/index.js';
import { CLIENT_KINDS, type ClientKind, client, closeAll } from './support/clients.js';
import { mutantBuild } from './support/mutant-builds.js';
import { type RedisServer, freePort, RedisServer as Server, startServer, waitFor } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const LIMIT = 10;
const PAUSE_MS = 1500;
const DIST = new URL('../dist/esm/index.js', import.meta.url).href;

let paused: RedisServer;
let durable: RedisServer;
let runs = 0;

beforeAll(async () => {
  paused = await startServer();
  durable = await new Server(await freePort(), ['--appendonly', 'yes', '--appendfsync', 'always']).start();
});

afterAll(async () => {
  await closeAll();
  await paused?.stop();
  await durable?.stop();
});

type Build = { RedisStore: typeof Store };

/** held takes all 10 leases of a fresh key through a store of `build`, on `server` through `kind`. */
async function held(build: Build, server: RedisServer, kind: ClientKind) {
  const failures: FailureInfo[] = [];
  const store = new build.RedisStore({ client: await client(kind, server.port) });
  store.on('failure', (info) => failures.push(info));
  const limiter = new ConcurrencyLimiter({ limit: LIMIT, name: `pause-${runs++}`, store });
  const decisions = await Promise.all(Array.from({ length: LIMIT }, () => limiter.consume('k')));
  expect(decisions.every((d) => d.allowed && d.failure === undefined)).toBe(true);
  return { limiter, failures };
}

/** admittedAfter counts how many of LIMIT + 1 new requests the key admits, once the store decides on Redis again. */
async function admittedAfter(limiter: ConcurrencyLimiter<'async'>): Promise<number> {
  await waitFor('the store to decide on Redis again', async () => (await limiter.peek('probe')).failure === undefined, 5000);
  const decisions = await Promise.all(Array.from({ length: LIMIT + 1 }, () => limiter.consume('k')));
  expect(decisions.filter((d) => d.failure !== undefined)).toEqual([]);
  return decisions.filter((d) => d.allowed).length;
}

/**
 * releasedThroughPause stops `server`, waits until the store has noticed (a peek that times out opens
 * its breaker), releases the 10 leases, and resumes the server PAUSE_MS after it stopped; then counts
 * what the key admits.
 */
async function releasedThroughPause(build: Build, kind: ClientKind): Promise<{ admitted: number; failures: FailureInfo[] }> {
  const { limiter, failures } = await held(build, paused, kind);
  const stoppedAt = performance.now();
  paused.pause();
  expect(await limiter.peek('other')).toMatchObject({ failure: 'fallback' });
  const releases = Promise.all(Array.from({ length: LIMIT }, () => limiter.release('k')));
  await waitFor('the end of the pause', () => performance.now() - stoppedAt >= PAUSE_MS, PAUSE_MS + 1000);
  paused.resume();
  await releases;
  await waitFor('the released leases to reach Redis', () => (limiter.binding as unknown as { unreleased: number }).unreleased === 0, 5000).catch(() => {});
  return { admitted: await admittedAfter(limiter), failures };
}

describeRedis('concurrency leases released while Redis is away', () => {
  for (const kind of CLIENT_KINDS) {
    it(`sends again the releases a 1.5 s SIGSTOP kept from Redis: the key admits exactly 10 afterwards (${kind})`, async () => {
      const { admitted, failures } = await releasedThroughPause((await import(DIST)) as Build, kind);
      expect(admitted).toBe(LIMIT);
      // Reported once each: the probe among them may have timed out, the others were not sent.
      expect(
        failures
          .filter((f) => f.operation === 'refund')
          .map((f) => f.reason)
          .sort(),
      ).toEqual(expect.arrayContaining(Array(LIMIT - 1).fill('unavailable')));
      expect(failures.filter((f) => f.operation === 'refund')).toHaveLength(LIMIT);
    });
  }

  it('sends again the releases a restart kept from Redis, with the leases back from the append-only file (ioredis)', async () => {
    const { limiter } = await held((await import(DIST)) as Build, durable, 'ioredis');
    await durable.kill();
    await Promise.all(Array.from({ length: LIMIT }, () => limiter.release('k')));
    await durable.start();
    await waitFor('the released leases to reach Redis', () => (limiter.binding as unknown as { unreleased: number }).unreleased === 0, 5000);
    expect(await admittedAfter(limiter)).toBe(LIMIT);
  });

  it('catches the mutant that drops a release Redis could not run', async () => {
    const { admitted } = await releasedThroughPause((await import(mutantBuild('dropped-releases'))) as Build, 'ioredis');
    expect(admitted).toBeLessThan(LIMIT);
  });
});
