/**
 * Delay mode over real HTTP (`mode: 'delay'`, core's http/decide/delay.ts): a request over the limit is held
 * until it fits and then passes, with the RateLimit headers of that moment; one that would wait longer
 * than maxDelayMs is answered 429 at once; a client that goes away while held releases its wait: the
 * key's state is exactly what it was before the request, the route never runs, nothing reaches the
 * error path. Fake timers (setTimeout only: the servers and clients keep their own) with a ManualClock
 * moved alongside, so nothing sleeps. The release check runs on the adapter's mutant that does not hand
 * core the client's socket, which it must catch.
 */
import { type IncomingMessage, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Driver, Served } from '../driver.js';
import { type MemoryBinding } from '@ratekeeper/core/store';

const T0 = 1_700_000_000_000;

/** turns lets the event loop run until `done()` holds (real I/O, fake timers), or fails after many turns. */
async function turns(done: () => boolean, what: string): Promise<void> {
  if (!(await within(done))) throw new Error(`timed out waiting for ${what}`);
}

/** within answers whether `done()` came to hold within a few hundred turns of the event loop. */
async function within(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 500; i++) {
    if (done()) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return done();
}

async function listening(served: Served): Promise<number> {
  if (!served.server.listening) await new Promise((done) => served.server.once('listening', done));
  return (served.server.address() as AddressInfo).port;
}

function bucket(clock: ManualClock): TokenBucketLimiter {
  return new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock, name: 'delayed' });
}

/** moveTime advances the fake timers and the limiter's clock together. */
async function moveTime(clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await vi.advanceTimersByTimeAsync(ms);
}

/**
 * clientLeavesNoTrace holds one request, lets its client go, and throws unless the key is exactly as
 * it was, the route never ran and nothing reached the error path.
 */
export async function clientLeavesNoTrace<F>(driver: Driver<F>, factory: F): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const clock = new ManualClock(T0);
  const limiter = bucket(clock);
  const binding = limiter.binding as MemoryBinding;
  const closed: Promise<void>[] = [];
  const before = (req: IncomingMessage) => void closed.push(new Promise((done) => req.socket.once('close', () => done())));
  const served = driver.serve({ limiter, key: () => 'k', mode: 'delay', maxDelayMs: 5000 }, { factory, before });
  const port = await listening(served);
  expect((await served.http.get('/')).status).toBe(200);
  const spent = binding.snapshot('k');
  const base = vi.getTimerCount();
  const client = httpRequest({ host: '127.0.0.1', port, path: '/' });
  client.on('error', () => {});
  client.end();
  await turns(() => vi.getTimerCount() > base, 'the request to be held');
  client.destroy();
  await closed[1];
  const released = await within(() => vi.getTimerCount() === base);
  if (!released || JSON.stringify(binding.snapshot('k')) !== JSON.stringify(spent)) throw new Error('the key changed: the wait of a client that left was not released');
  await moveTime(clock, 5000); // the instant the request would have gone passes: nothing happens
  expect(served.ran()).toBe(1);
  expect(served.errors.map(String)).toEqual([]);
}

export function delaySuite<F>(drivers: readonly Driver<F>[], mutant: { forgetsRelease: F }): void {
  for (const driver of drivers) {
    describe(`${driver.name}: mode 'delay'`, () => {
      afterEach(() => {
        vi.useRealTimers();
      });

      it('holds a request over the limit until it fits, then passes it with the headers of that moment', async () => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
        const clock = new ManualClock(T0);
        const served = driver.serve({ limiter: bucket(clock), mode: 'delay', maxDelayMs: 1500 });
        await listening(served);
        expect((await served.http.get('/')).status).toBe(200);
        const base = vi.getTimerCount();
        let status: number | undefined;
        const held = served.http.get('/').then((res) => ((status = res.status), res));
        await turns(() => vi.getTimerCount() > base, 'the request to be held');
        await moveTime(clock, 999);
        await turns(() => true, 'a turn');
        expect(status).toBeUndefined();
        expect(served.ran()).toBe(1);
        await moveTime(clock, 1);
        const res = await held;
        expect(res.status).toBe(200);
        expect(served.ran()).toBe(2);
        expect(res.headers['ratelimit']).toBe('"delayed";r=0;t=1');
        expect(res.headers['retry-after']).toBeUndefined();
      });

      it('answers 429 at once, with the wait as Retry-After, when the request would wait longer than maxDelayMs', async () => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
        const clock = new ManualClock(T0);
        const served = driver.serve({ limiter: bucket(clock), mode: 'delay', maxDelayMs: 500 });
        expect((await served.http.get('/')).status).toBe(200);
        const denied = await served.http.get('/');
        expect(denied.status).toBe(429);
        expect(denied.headers['retry-after']).toBe('1');
        expect(served.ran()).toBe(1);
      });

      it('releases the wait of a client that went away: the key exactly as before, nothing run, no error', async () => {
        await clientLeavesNoTrace(driver, driver.rateLimit);
      });

      it('the check catches an adapter that never releases a held request (mutant)', async () => {
        await expect(clientLeavesNoTrace(driver, mutant.forgetsRelease)).rejects.toThrow(/^the key changed/);
      });
    });
  }
}
