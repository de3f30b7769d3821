/**
 * Concurrency leases while Redis is away (a real redis-server, killed by the test): the store's
 * failure policy decides, as for every binding, and a release goes back where the lease was taken.
 * 'fallback' (default) takes the lease on the in-process fallback, enforcing the limit there, and its
 * release frees it there; 'open' admits without a lease, and its release frees nothing in Redis;
 * 'closed' denies. Every failure is reported through 'failure', no promise rejects, and no error text
 * reaches a decision.
 */
import { ConcurrencyLimiter } from '@ratekeeper/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { type FailureInfo, RedisStore, type RedisStoreOptions } from '../src/index.js';
import { releaseByKeyStore } from './mutants/release-by-key.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer, waitFor } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

let up: RedisServer;
let down: RedisServer;
let runs = 0;

beforeAll(async () => {
  [up, down] = await Promise.all([startServer(), startServer()]);
  await down.kill();
});

afterAll(async () => {
  await closeAll();
  await up?.stop();
});

function limiterOn(server: RedisServer, onFailure: 'fallback' | 'open' | 'closed', name: string) {
  const failures: FailureInfo[] = [];
  const store = new RedisStore({ client: ioredis(server.port, { maxRetriesPerRequest: 0, enableOfflineQueue: false }), onFailure, leaseTtlMs: 300, timeoutMs: 100 });
  store.on('failure', (info) => failures.push(info));
  return { limiter: new ConcurrencyLimiter({ limit: 2, name, store }), failures };
}

/**
 * openReleasesNothing: a lease taken in Redis, then an 'open' admission while Redis is paused (each
 * call times out); releasing the latter must leave the former in Redis, and releasing both, none.
 */
async function openReleasesNothing(make: (o: RedisStoreOptions & { client: Redis }) => RedisStore) {
  const failures: FailureInfo[] = [];
  // A lease of 1 s outlives the pause (at least timeoutMs, longer on a loaded machine) by far.
  const store = make({ client: ioredis(up.port), onFailure: 'open', leaseTtlMs: 1000, timeoutMs: 100, probeIntervalMs: 0 });
  store.on('failure', (info) => failures.push(info));
  const name = `open-${runs++}`;
  const limiter = new ConcurrencyLimiter({ limit: 2, name, store });
  expect(await limiter.consume('k')).toMatchObject({ allowed: true });
  up.pause();
  try {
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, failure: 'open' });
  } finally {
    up.resume();
  }
  await limiter.release('k');
  const admin = ioredis(up.port);
  expect(await admin.zcard(`rk:${name}:{k}`), 'the leases held in Redis after the open admission is released').toBe(1);
  // Right after the pause the breaker may still be open (its probe, a PING, not yet answered): the
  // release then waits for the answer and runs on recovery.
  await limiter.release('k');
  await waitFor('the lease released in Redis', async () => (await admin.zcard(`rk:${name}:{k}`)) === 0, 2000);
  const reported = failures.map((f) => `${f.operation}/${f.reason}`);
  expect(reported[0]).toBe('consume/timeout');
  expect(reported.slice(1).filter((r) => r !== 'refund/unavailable')).toEqual([]);
}

describeRedis('concurrency leases while Redis is away', () => {
  it("'fallback' enforces the limit in process, and a release frees the fallback's lease", async () => {
    const { limiter, failures } = limiterOn(down, 'fallback', 'fb');
    const decisions = [await limiter.consume('k'), await limiter.consume('k'), await limiter.consume('k')];
    expect(decisions.map((d) => `${d.allowed}/${d.failure}`)).toEqual(['true/fallback', 'true/fallback', 'false/fallback']);
    await limiter.release('k');
    expect((await limiter.consume('k')).allowed).toBe(true);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((f) => f.policy === 'fb' && typeof f.reason === 'string' && !('message' in f))).toBe(true);
    await limiter.release('k', 2);
  });

  it("'open' admits without a lease, and releasing that admission frees none of the leases held in Redis", async () => {
    await openReleasesNothing((o) => new RedisStore(o));
  });

  it('the check catches a release that removes any lease of the key instead of its own (mutant)', async () => {
    await expect(openReleasesNothing(releaseByKeyStore)).rejects.toThrow(/the leases held in Redis after the open admission is released/);
  });

  it("'closed' denies with a finite wait", async () => {
    const { limiter } = limiterOn(down, 'closed', 'closed');
    expect(await limiter.consume('k')).toMatchObject({ allowed: false, failure: 'closed', retryAfterMs: 1000 });
  });
});
