/**
 * The fallback divisor: with `fallbackDivisor: N` each process's fallback enforces 1/N of the limit
 * (capacity and refill rate for a token bucket, the limit per window for the windows, never below 1),
 * so N processes deciding alone during an outage admit about the limit between them instead of N
 * times it. Checked on the pure function and through a RedisStore whose client refuses every command.
 */
import { FixedWindowLimiter, ManualClock, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { fallbackPolicy } from '@ratekeeper/core/store';
import { RedisStore } from './redis-store.js';

/** A client whose every command fails at once, as with Redis down: the fallback decides everything. */
const down = { call: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')) };

async function admittedDuringOutage(divisor: number | undefined, make: (store: RedisStore) => { consume(key: string): Promise<{ allowed: boolean; failure?: string }> }) {
  const store = new RedisStore(divisor === undefined ? { client: down } : { client: down, fallbackDivisor: divisor });
  store.on('failure', () => {});
  const limiter = make(store);
  let admitted = 0;
  for (let i = 0; i < 200; i++) {
    const d = await limiter.consume('k');
    expect(d.failure).toBe('fallback');
    if (d.allowed) admitted++;
  }
  return admitted;
}

describe('fallbackDivisor', () => {
  it('divides a token bucket’s capacity and refill rate, and keeps its name', () => {
    const policy = new TokenBucketLimiter({ capacity: 100, refillPerSecond: 10, name: 'api' }).policy;
    expect(fallbackPolicy(policy, 8)).toEqual({ ...policy, capacity: 12, limit: 12, refillPerSecond: 1.25, intervalMs: 800, burstMs: 9600, windowMs: 9600 });
    expect(fallbackPolicy(policy, 1)).toBe(policy);
  });

  it('divides a window’s limit, never below 1', () => {
    const policy = new SlidingWindowLimiter({ limit: 10, windowMs: 1000 }).policy;
    expect(fallbackPolicy(policy, 4)).toEqual({ ...policy, limit: 2 });
    expect(fallbackPolicy(policy, 100)).toEqual({ ...policy, limit: 1 });
  });

  it('makes each process’s fallback admit its share during an outage: 100 / 4 = 25', async () => {
    const clock = new ManualClock(0);
    const fixed = (store: RedisStore) => new FixedWindowLimiter({ limit: 100, windowMs: 60_000, store, clock });
    const bucket = (store: RedisStore) => new TokenBucketLimiter({ capacity: 100, refillPerSecond: 1, store, clock });
    expect(await admittedDuringOutage(undefined, fixed)).toBe(100);
    expect(await admittedDuringOutage(4, fixed)).toBe(25);
    expect(await admittedDuringOutage(4, bucket)).toBe(25);
    // A sliding log's step is made for its limit: its share needs a step of its own.
    const log = (store: RedisStore) => new SlidingLogLimiter({ limit: 100, windowMs: 60_000, store, clock });
    expect(await admittedDuringOutage(4, log)).toBe(25);
  });

  it('reports the share as the limit, under the limiter’s own policy object', async () => {
    const store = new RedisStore({ client: down, fallbackDivisor: 4 });
    store.on('failure', () => {});
    const limiter = new FixedWindowLimiter({ limit: 100, windowMs: 60_000, store, clock: new ManualClock(0) });
    const decision = await limiter.consume('k');
    expect(decision).toMatchObject({ allowed: true, limit: 25, remaining: 24, failure: 'fallback' });
    expect(decision.policy).toBe(limiter.policy);
  });
});
