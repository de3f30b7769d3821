/**
 * Delay mode over real HTTP on Node (@hono/node-server, which aborts the Request's signal when the
 * client's connection closes): the adapter contract's delay suite, with the mutant that never
 * listens for the signal's abort, so never releases the wait of a client that left. Then the check
 * called directly: the default bound, a signal aborted while held, the options' validation.
 */
import { delaySuite } from '@ratekeeper/adapter-contract';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rateLimit } from '../src/index.js';
import { driver } from './helpers.js';
import { forgetsRelease } from './mutants/forgets-release.js';

delaySuite([driver], { forgetsRelease });

describe("mode 'delay' on the check itself", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is taken with the default bound (1000 ms): a wait of 1000 ms is held, one of 1001 ms answered 429', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const clock = new ManualClock(0);
    // A bucket of 1 refilled every 1001 ms: the second request would wait 1001 ms.
    const slow = rateLimit({ limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1000 / 1001, clock }), key: () => 'slow', mode: 'delay' });
    expect(await slow(new Request('http://x/'))).toBeUndefined();
    expect((await slow(new Request('http://x/')))?.status).toBe(429);
    const limit = rateLimit({ limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock }), key: () => 'k', mode: 'delay' });
    expect(await limit(new Request('http://x/'))).toBeUndefined();
    let answered: unknown = 'pending';
    const held = limit(new Request('http://x/')).then((r) => (answered = r));
    clock.advance(999);
    await vi.advanceTimersByTimeAsync(999);
    expect(answered).toBe('pending');
    clock.advance(1);
    await vi.advanceTimersByTimeAsync(1);
    await held;
    expect(answered).toBeUndefined();
  });

  it('answers the empty 499 for a request whose signal aborts while held, and gives the unit back', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const clock = new ManualClock(0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    const limit = rateLimit({ limiter, key: () => 'k', mode: 'delay' });
    expect(await limit(new Request('http://x/'))).toBeUndefined();
    const client = new AbortController();
    const held = limit(new Request('http://x/', { signal: client.signal }));
    client.abort();
    const gone = await held;
    expect([gone?.status, await gone?.text()]).toEqual([499, '']);
    expect(vi.getTimerCount()).toBe(0);
    clock.advance(1000);
    expect(limiter.peek('k').allowed).toBe(true); // the booking was cancelled: the unit refilled is free
  });

  it("validates the mode's options with the check's name", () => {
    expect(() => rateLimit({ mode: 'delay', maxDelayMs: -1 })).toThrowError(
      new RangeError('rateLimit: maxDelayMs must be a whole number of milliseconds from 0 to 2147483647, got -1'),
    );
    expect(() => rateLimit({ mode: 'wait' as never })).toThrowError(new TypeError(`rateLimit: mode must be 'limit' or 'delay', got "wait"`));
  });
});
