/**
 * Bans while Redis is away: the bans set in Redis are out of reach, so the failure policy decides on
 * the fallback with a ban of its own in front (core's Fallback.bannedFor): a login limiter's denial
 * there bans the key in this process for banMs, a window later it is still denied with the ban's time
 * left, a block is set there, and reset lifts them. Redis refuses connections here (a port nothing
 * listens on: decided at once), with the README's ioredis client and the store's DEFAULT options.
 *
 * The broken variant, a fallback store without bans (the store before this release decided the
 * fallback without them), admits the banned key a window later.
 */
import { BanLimiter, FixedWindowLimiter, ManualClock, MemoryStore } from '@ratekeeper/core';
import { closedPort } from '@ratekeeper/store-contract';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { describeRedis } from './support/requirements.js';

const T0 = 1_800_000_000_000;
const clients: Redis[] = [];
afterAll(() => {
  for (const client of clients) client.disconnect();
});

/** away makes a login ban (2 a second, then banned a minute) on a RedisStore whose Redis refuses connections. */
async function away(fallbackStore?: MemoryStore) {
  const client = new Redis(`redis://127.0.0.1:${await closedPort()}`);
  client.on('error', () => {});
  clients.push(client);
  const store = new RedisStore({ client, ...(fallbackStore === undefined ? {} : { fallbackStore }) });
  store.on('failure', () => {});
  const clock = new ManualClock(T0);
  const login = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 2, windowMs: 1000, store, clock, name: 'login' }), banMs: 60_000 });
  const first = [await login.consume('ip'), await login.consume('ip'), await login.consume('ip')];
  clock.advance(1500); // the window is over; the ban is not
  return { login, clock, first, later: await login.consume('ip') };
}

describeRedis('bans while Redis refuses connections', () => {
  it('the fallback bans what its own denial bans, for banMs; a block is set there; reset lifts them', async () => {
    const { login, clock, first, later } = await away();
    expect(first.map((d) => [d.allowed, d.failure])).toEqual([
      [true, 'fallback'],
      [true, 'fallback'],
      [false, 'fallback'],
    ]);
    expect([later.allowed, later.retryAfterMs, later.failure]).toEqual([false, 58_500, 'fallback']);
    expect((await login.consume('other')).allowed).toBe(true);
    await login.block('other', 30_000);
    expect((await login.consume('other')).retryAfterMs).toBe(30_000);
    await login.reset('ip');
    expect((await login.consume('ip')).allowed).toBe(true);
    clock.advance(30_000);
    expect((await login.consume('other')).allowed).toBe(true);
  });

  it('the broken variant, a fallback store without bans, admits the banned key a window later', async () => {
    class NoBans extends MemoryStore {
      override banned = undefined as never;
    }
    expect((await away(new NoBans())).later.allowed).toBe(true);
  });
});
