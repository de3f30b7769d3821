/**
 * The row-store kit's own behaviour, on a store whose rows are a Map (./map-rows.ts):
 * - BatchRunner: a plain call alone goes as the store's one statement where it has one, calls made
 *   together as one transaction, and a statement that wrote what core's step does not is a reply
 *   failure (decided by the failure policy, reported), never a decision (mutant: a drifting port);
 * - RowEngine: a refund the store could not take is owed, given to the fallback, and given back to the
 *   store when it answers again (and only once);
 * - Fallback bans: while the store cannot decide, a BanLimiter's denial on the fallback bans the key
 *   there for banMs (a window later it is still denied, with the ban's time left), and reset lifts it;
 *   the broken variant, a fallback store without bans (the kit
 *   before this release decided the fallback without them), admits the key again a window later;
 * - FailureEvents: 'failure' listeners (on, once, off) hear each failure once, and Node's events.once
 *   works on a store.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { BanLimiter, FixedWindowLimiter, ManualClock, MemoryStore, TokenBucketLimiter } from '../../src/index.js';
import type { FailureInfo } from '../../src/store/index.js';
import { MapStore } from './map-rows.js';

const T0 = 1_800_000_000_000;

describe('BatchRunner', () => {
  it('sends a plain call alone as one statement, and calls made together as one transaction', async () => {
    const store = new MapStore();
    store.knobs.plain = true;
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, store, clock, name: 'tb' });
    for (let i = 0; i < 3; i++) expect((await limiter.consume('k')).remaining).toBe(9 - i);
    expect([store.knobs.statements, store.knobs.transactions]).toEqual([3, 0]);
    const together = await Promise.all([limiter.consume('k'), limiter.consume('k'), limiter.consume('j')]);
    expect(together.map((d) => d.remaining)).toEqual([6, 5, 9]);
    expect(store.knobs.transactions).toBe(1);
  });

  it('fails a call whose statement wrote what core’s step does not, reports it, and decides it by the failure policy', async () => {
    const store = new MapStore();
    store.knobs.plain = true;
    store.knobs.drift = true;
    const failures: FailureInfo[] = [];
    store.on('failure', (info) => failures.push(info));
    const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, store, clock: new ManualClock(T0), name: 'tb' });
    const decision = await limiter.consume('k');
    expect(decision.failure).toBe('fallback');
    expect(failures.map((f) => [f.operation, f.reason])).toEqual([['consume', 'reply']]);
    expect(String((failures[0]?.error as Error | undefined)?.message)).toMatch(/wrote .*core's step/);
  });
});

describe('RowEngine: refunds owed across an outage', () => {
  it('gives the refunds the store could not take back to it once it answers again, once', async () => {
    const store = new MapStore();
    store.on('failure', () => {});
    const clock = new ManualClock(T0);
    const limiter = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, store, clock, name: 'fw' });
    for (let i = 0; i < 5; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    store.knobs.down = true;
    await limiter.refund('k', 2);
    await limiter.refund('k', 1);
    expect(store.engine.owing).toBe(2);
    store.knobs.down = false;
    // The first call after the outage is the breaker's probe: its answer sends what is owed, before the
    // next call on the row (one row: it waits for them).
    await limiter.peek('k');
    const back = await limiter.consume('k');
    expect([back.allowed, back.remaining, store.engine.owing]).toEqual([true, 2, 0]);
    // Given back once: later calls see the same count (a peek answers what one more request would leave).
    await limiter.peek('k');
    expect((await limiter.peek('k')).remaining).toBe(1);
  });
});

describe('Fallback bans', () => {
  /** outage runs a login ban (2 a second, then banned a minute) on `store`, down, and answers what each step decided. */
  async function outage(store: MapStore) {
    store.on('failure', () => {});
    store.knobs.down = true;
    const clock = new ManualClock(T0);
    const login = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 2, windowMs: 1000, store, clock, name: 'login' }), banMs: 60_000 });
    const first = await Promise.all([login.consume('ip'), login.consume('ip'), login.consume('ip')]);
    clock.advance(1500); // the window is over; the ban is not
    const later = await login.consume('ip');
    const other = await login.consume('other');
    return { login, clock, first, later, other };
  }

  it("bans on the fallback what the fallback's own denial bans, for banMs, until reset", async () => {
    const { login, clock, first, later, other } = await outage(new MapStore());
    expect(first.map((d) => [d.allowed, d.failure])).toEqual([
      [true, 'fallback'],
      [true, 'fallback'],
      [false, 'fallback'],
    ]);
    expect([later.allowed, later.retryAfterMs, later.failure]).toEqual([false, 60_000 - 1500, 'fallback']);
    expect(other.allowed).toBe(true);
    clock.advance(60_000);
    expect((await login.consume('ip')).allowed).toBe(true); // the ban ended
    await login.consume('ip');
    expect((await login.consume('ip')).allowed).toBe(false); // banned again
    await login.reset('ip');
    expect((await login.consume('ip')).allowed).toBe(true);
  });

  it('the broken variant, a fallback without bans, admits the banned key a window later', async () => {
    class NoBans extends MemoryStore {
      override banned = undefined as never;
    }
    const { later } = await outage(new MapStore(new NoBans()));
    expect(later.allowed).toBe(true);
  });
});

describe('FailureEvents', () => {
  it('tells each failure to on and once listeners, not to one removed, and resolves events.once', async () => {
    const store = new MapStore();
    const heard: string[] = [];
    const removed = () => heard.push('removed');
    store.on('failure', (info) => heard.push(`on:${info.operation}`));
    store.once('failure', (info) => heard.push(`once:${info.operation}`));
    store.on('failure', removed);
    store.off('failure', removed);
    const next = once(store as never, 'failure');
    store.knobs.down = true;
    const limiter = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, store, clock: new ManualClock(T0), name: 'fw' });
    await limiter.consume('k');
    await limiter.peek('k');
    expect(heard).toEqual(['on:consume', 'once:consume', 'on:peek']);
    expect(((await next) as FailureInfo[])[0]?.operation).toBe('consume');
    expect(store.listenerCount('failure')).toBe(1);
  });
});
