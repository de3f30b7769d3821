/**
 * Regression: a denial whose reply arrived after this process gave units back to its key (a refund,
 * a lease's return) was remembered anyway, since the give-back forgot the key before the reply came:
 * the key was then denied from the cache, without a round trip, while Redis would admit it. Also
 * when the give-back's first attempt reached Redis past its deadline and was sent again (Remote's
 * 'expired'), so that Redis ran it after a denial sent later.
 *
 * Regression: the deny cache is shared by every binding of a RedisStore and was keyed by the user key
 * alone, so one policy's denial of a key answered another policy's requests for it: a strict login
 * limit that locked an address out also denied that address on the site-wide limit (with the login
 * policy's figures, which the adapters then refuse as a foreign decision: a 500). It is keyed by the
 * Redis key now, which names the policy.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { refundScript } from '../src/lua/scripts.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

let server: RedisServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

describeRedis('the deny cache with several policies on one store', () => {
  it("answers one policy's denial for that policy only", async () => {
    const store = new RedisStore({ client: ioredis(server.port) }); // deny cache on: the default
    const login = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 0.01, store, name: 'login' });
    const site = new TokenBucketLimiter<'async'>({ capacity: 100, refillPerSecond: 1, store, name: 'site' });
    expect((await login.consume('1.2.3.4')).allowed).toBe(true);
    expect(await login.consume('1.2.3.4')).toMatchObject({ allowed: false, policy: { name: 'login' } });
    expect(await login.consume('1.2.3.4')).toMatchObject({ allowed: false, policy: { name: 'login' } });
    expect(store.denyCacheHits).toBe(1); // the login policy's own repeat is still answered locally
    expect(await site.consume('1.2.3.4')).toMatchObject({ allowed: true, remaining: 99, policy: { name: 'site' } });
  });
});

describeRedis('the deny cache and units given back while a denial is on the wire', () => {
  it('does not remember a denial sent before a refund of its key', async () => {
    const store = new RedisStore({ client: ioredis(server.port), time: 'client' });
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 0.01, store, name: 'refund-race', clock: new ManualClock(1_700_000_000_000) });
    expect((await limiter.consume('k')).allowed).toBe(true);
    const denied = limiter.consume('k'); // sent first: Redis denies it, then runs the refund
    const refunded = (limiter.refund as (key: string) => Promise<void>)('k');
    expect((await denied).allowed).toBe(false);
    await refunded;
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
    expect(store.denyCacheHits).toBe(0);
  });

  it('does not remember a denial that Redis ran before a refund sent earlier but run again after its deadline', async () => {
    const redis = ioredis(server.port);
    const refundSha = refundScript('token-bucket', true).sha;
    let expired = false;
    // The refund's first attempt carries a deadline long past: Redis runs nothing and Remote sends it again.
    const client = {
      call(command: string, ...args: string[]) {
        if (command === 'EVALSHA' && args[0] === refundSha && !expired) {
          expired = true;
          args[args.length - 1] = '1';
        }
        return redis.call(command, ...args);
      },
    };
    const store = new RedisStore({ client, time: 'client' });
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 0.01, store, name: 'refund-again', clock: new ManualClock(1_700_000_000_000) });
    expect((await limiter.consume('k')).allowed).toBe(true);
    const refunded = (limiter.refund as (key: string) => Promise<void>)('k');
    const denied = limiter.consume('k'); // sent after the refund, run before its second attempt
    expect((await denied).allowed).toBe(false);
    await refunded;
    expect(expired).toBe(true);
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
  });
});
