/**
 * Concurrency leases released at the end of every request's work, aborted ones included: the adapter
 * contract's leases suite on @ratekeeper/fetch (its forgets-aborts mutant never hands over the
 * Response of a request whose client left). A client gone while the store decided (its signal
 * already aborted when the lease is taken) keeps the lease until its handler's Response is handed
 * over, not a moment less: the check that ends it at the disconnect (the ends-at-disconnect mutant,
 * what this adapter did before) is caught.
 */
import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { eventually, gated, leasesSuite } from '@ratekeeper/adapter-contract';
import { ConcurrencyLimiter, type RateLimiter } from '@ratekeeper/core';
import { expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { type Factory, driver, serveFetch } from './helpers.js';
import { releasesAtDisconnect } from './mutants/ends-at-disconnect.js';
import { forgetsAborts } from './mutants/forgets-aborts.js';

leasesSuite([driver], { forgetsAborts });

/**
 * leaseHeldWhileHandlerWorks: a client gone while the store decided; the lease is taken for it, and
 * stays taken while the handler works, until its Response is handed over.
 */
async function leaseHeldWhileHandlerWorks(factory: Factory): Promise<void> {
  const inner = new ConcurrencyLimiter({ limit: 1, name: 'inflight' });
  const { limiter, waiting } = gated(inner);
  const releasing: RateLimiter<'async'> = { ...limiter, release: async (key, cost) => inner.release(key, cost) };
  const limit = factory({ limiter: releasing, key: () => 'k' });
  let arrived: (request: Request) => void = () => {};
  const came = new Promise<Request>((done) => (arrived = done));
  let admitted: () => void = () => {};
  const checked = new Promise<void>((done) => (admitted = done));
  let finishWork: () => void = () => {};
  const work = new Promise<void>((done) => (finishWork = done));
  const { server } = serveFetch(async (request) => {
    arrived(request);
    const limited = await limit(request, { ip: '127.0.0.1' });
    if (limited !== undefined) return limited;
    admitted();
    await work; // the handler is still working for a client that is gone
    return limit.headers(request, new Response('late'));
  });
  if (!server.listening) await once(server, 'listening');
  const client = httpRequest({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' });
  client.on('error', () => {});
  client.end();
  const request = await came;
  while (waiting.length === 0) await new Promise(setImmediate);
  client.destroy();
  while (!request.signal.aborted) await new Promise(setImmediate);
  waiting.shift()!(); // the lease is taken now, for a client already gone
  await checked;
  for (let i = 0; i < 5; i++) await new Promise(setImmediate);
  const back = inner.peek('k').allowed;
  finishWork();
  expect(back, 'the lease is back while the handler still works').toBe(false);
  await eventually('the lease back once the handler answered', () => inner.peek('k').allowed);
}

it('keeps the lease of a request whose client went away while the store was deciding until its handler answers', async () => {
  await leaseHeldWhileHandlerWorks(rateLimit);
});

it('the check catches a check that ends the lease at the disconnect (mutant)', async () => {
  await expect(leaseHeldWhileHandlerWorks(releasesAtDisconnect)).rejects.toThrow(/the lease is back while the handler still works/);
});
