/**
 * Concurrency leases through a real app of the driver's framework over real HTTP: a request holds its
 * lease while its response is in flight (a concurrent one is denied 429 with the
 * `qu="concurrent-requests"` policy and Retry-After), and the lease is back, in-flight zero, once the
 * request's work is over: its response completed, the client aborted while the route was working
 * and the route then answered (Node emits 'close' without 'finish'; work.ts of core), the client
 * aborted mid-response (the socket destroyed while a 32 MB body is still being sent), or the route
 * threw (the framework's 500). The adapter's "forgets aborts" mutant (one that never releases the
 * lease of an aborted request) must be caught by the same check.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ConcurrencyLimiter, type Decision, type RateLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Driver } from '../driver.js';
import { eventually } from './serve-work.js';
import { gated } from '../support.js';

/**
 * closeOnFinish makes `res.once('close', …)` listen to 'finish' instead until the returned function
 * undoes it: the mutation the adapters' forgets-aborts mutants apply around the real middleware.
 */
export function closeOnFinish(res: ServerResponse): () => void {
  const original = res.once;
  res.once = function (this: ServerResponse, event: string, listener: (...args: unknown[]) => void) {
    return original.call(this, event === 'close' ? 'finish' : event, listener);
  } as typeof res.once;
  return () => void (res.once = original);
}

/** serveLeases serves the app with a one-lease limit under one key; per request, promises for its arrival and its response's close. */
async function serveLeases<F>(driver: Driver<F>, factory?: F, limiter: RateLimiter = new ConcurrencyLimiter({ limit: 1, name: 'inflight' })) {
  const counted = limiter as ConcurrencyLimiter;
  const closed: Promise<unknown>[] = [];
  let arrived: () => void = () => {};
  const before = (_req: IncomingMessage, res: ServerResponse) => void (closed.push(once(res, 'close')), arrived());
  const served = driver.serve({ limiter, key: () => 'k' }, factory === undefined ? { before } : { before, factory });
  if (!served.server.listening) await once(served.server, 'listening');
  const port = (served.server.address() as AddressInfo).port;
  const inFlight = () => ((counted.peek('k') as Decision).allowed ? 0 : 1);
  /** released waits (bounded) for the lease to be back: the handler answers after its client left, a few turns later. */
  const released = (what: string) => eventually(what, () => inFlight() === 0, 1000);
  /** send starts a request that the test will abort; it resolves once the server has it. */
  const send = async (path: string) => {
    const came = new Promise<void>((done) => (arrived = done));
    const client = httpRequest({ host: '127.0.0.1', port, path });
    client.on('error', () => {});
    client.end();
    await came;
    return client;
  };
  return { ...served, closed, inFlight, released, send };
}

/** LARGE is more bytes than the loopback socket buffers on both sides hold, so the response cannot finish unread. */
const LARGE = 32_000_000;

/**
 * abortedLeasesReturn: requests aborted while the route is still working (no byte sent yet: Node emits
 * 'close' without 'finish') each give their lease back, in-flight zero, and the next request is admitted.
 */
export async function abortedLeasesReturn<F>(driver: Driver<F>, factory?: F): Promise<void> {
  const { http, closed, released, send } = await serveLeases(driver, factory);
  for (let i = 0; i < 3; i++) {
    const client = await send('/?hold=1');
    expect((await http.get('/')).status, 'a concurrent request while the lease is held').toBe(429);
    client.destroy();
    await Promise.all(closed);
    await released(`in flight after aborted request ${i}`);
  }
  await http.get('/').expect(200);
}

export function leasesSuite<F>(drivers: readonly Driver<F>[], mutant: { forgetsAborts: F }): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      it('holds the lease while the request is in flight: a concurrent request is denied, with the qu policy and Retry-After', async () => {
        const { http, send, closed, released } = await serveLeases(driver);
        const client = await send('/?hold=1');
        await http.get('/').expect(429).expect('RateLimit-Policy', '"inflight";q=1;qu="concurrent-requests"').expect('RateLimit', '"inflight";r=0;t=1').expect('Retry-After', '1');
        client.destroy();
        await Promise.all(closed);
        await released('in flight once the held request answered its gone client');
      });

      it('releases the lease of every completed request', async () => {
        const { http, closed, inFlight } = await serveLeases(driver);
        for (let i = 0; i < 3; i++) {
          await http.get('/').expect(200).expect('RateLimit', '"inflight";r=0;t=1');
          await Promise.all(closed);
          expect(inFlight(), `in flight after request ${i}`).toBe(0);
        }
      });

      it('releases the lease of a request whose route throws (5xx)', async () => {
        const { http, closed, inFlight, errors } = await serveLeases(driver);
        for (let i = 0; i < 3; i++) {
          expect((await http.get('/?throw=1')).status).toBe(500);
          await Promise.all(closed);
          expect(inFlight(), `in flight after failed request ${i}`).toBe(0);
        }
        expect(errors.length).toBe(3);
      });

      it('releases the lease of a request aborted while the route is working', async () => {
        await abortedLeasesReturn(driver);
      });

      it('releases the lease of a request aborted mid-response (its body still being sent)', async () => {
        const { http, closed, released, send } = await serveLeases(driver);
        const client = await send(`/?bytes=${LARGE}`);
        const [res] = (await once(client, 'response')) as [IncomingMessage];
        await once(res, 'data');
        res.pause(); // stop reading, so the body cannot finish sending before the abort
        expect((await http.get('/')).status).toBe(429);
        client.destroy();
        await Promise.all(closed);
        await released('in flight after the abort mid-response');
        await http.get('/').expect(200);
      });

      it('releases the lease of a request whose client went away while the store was deciding', async () => {
        const inner = new ConcurrencyLimiter({ limit: 1, name: 'inflight' });
        const { limiter, waiting } = gated(inner);
        const releasing: RateLimiter<'async'> = { ...limiter, release: async (key, cost) => inner.release(key, cost) };
        const { closed, send, errors } = await serveLeases(driver, undefined, releasing);
        const client = await send('/');
        while (waiting.length === 0) await new Promise(setImmediate);
        client.destroy();
        await Promise.all(closed);
        waiting.shift()!(); // the lease is taken now, for a response already closed
        for (let i = 0; i < 5; i++) await new Promise(setImmediate);
        expect(inner.peek('k').allowed, 'the lease is released').toBe(true);
        expect(errors).toEqual([]);
      });

      it('the check catches an adapter that releases on finish only, forgetting aborted requests (mutant)', async () => {
        await expect(abortedLeasesReturn(driver, mutant.forgetsAborts)).rejects.toThrow(/in flight after aborted request 0/);
      });
    });
  }
}
