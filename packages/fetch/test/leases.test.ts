/**
 * Concurrency leases released on every response end, aborted ones included: the adapter contract's
 * leases suite on @ratekeeper/fetch. A client gone while the handler still works is seen through the
 * request's signal; the adapter that never reads it (the ignores-gone mutant) keeps that lease. So
 * does a signal already aborted when the lease is taken (the client gone while the store decided):
 * released at once, while the handler still works.
 */
import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { gated, leasesSuite } from '@ratekeeper/adapter-contract';
import { ConcurrencyLimiter, type RateLimiter } from '@ratekeeper/core';
import { expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { type Factory, driver, serveFetch } from './helpers.js';
import { ignoresGone } from './mutants/ignores-gone.js';

leasesSuite([driver], { forgetsAborts: ignoresGone });

/**
 * leaseBackWhileHandlerWorks: a client gone while the store decided; the lease is taken for it, and
 * must be back at once, while the handler still works (not when its Response is handed over).
 */
async function leaseBackWhileHandlerWorks(factory: Factory): Promise<void> {
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
  expect(back, 'the lease is back before the handler ends').toBe(true);
}

it('releases at once the lease of a request whose client went away while the store was deciding, while its handler still works', async () => {
  await leaseBackWhileHandlerWorks(rateLimit);
});

it('the check catches a check that never sees its client gone (mutant)', async () => {
  await expect(leaseBackWhileHandlerWorks(ignoresGone)).rejects.toThrow(/the lease is back before the handler ends/);
});
