/**
 * Regression (issue 31, item 1): an aborted POST body locked a concurrency limit for abandonedMs. On a
 * remote store the decision lands after the client has gone; Fastify then never reads the body, runs
 * the handler or answers (its body reader is attached to a stream that already ended), so the admitted
 * request's lease waited 60 s for a handler that would never run: 7 aborted POSTs locked a `limit: 7`
 * route. Now the work of such a request ends when its decision lands.
 *
 * Real Fastify over real HTTP, default options, a ConcurrencyLimiter of 7 whose decisions are held
 * until the test lets them go (an async store, deterministic: each lands after its client left), on
 * the memory store and on a real redis-server: 7 JSON POSTs send their headers and 10 of 1,000 body bytes,
 * leave, and are then admitted; the 8th, sent whole, is admitted at once (200), not denied (429). A
 * mutant that does not tell an unread body from a read one holds the 7 leases and is caught.
 */
import { once } from 'node:events';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type StoreCase, gated, storeCases } from '@ratekeeper/adapter-contract';
import { ConcurrencyLimiter, type RateLimiter } from '@ratekeeper/core';
import Fastify, { type FastifyPluginCallback } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { type FastifyRateLimitOptions, rateLimit } from '../../src/index.js';
import { ignoresUnreadBody } from '../mutants/ignores-unread-body.js';

const LIMIT = 7;
const apps: ReturnType<typeof Fastify>[] = [];
afterAll(async () => {
  // A mutant's aborted requests never end: close their connections rather than wait for them.
  for (const app of apps) {
    app.server.closeAllConnections();
    await app.close();
  }
});

/** serve runs a Fastify app with the plugin (or a mutant) over a gated ConcurrencyLimiter on `store`. */
async function serve(store: StoreCase, plugin: FastifyPluginCallback<FastifyRateLimitOptions> = rateLimit) {
  const inner = new ConcurrencyLimiter({ limit: LIMIT, name: `upload-${Math.random()}`, ...(await storeOptions(store)) });
  const { limiter, waiting } = gated(inner as RateLimiter);
  const gatedLimiter = { ...limiter, release: (key: string, cost?: number) => inner.release(key, cost) } as RateLimiter<'async'>;
  const app = Fastify();
  apps.push(app);
  const closed: Promise<unknown>[] = [];
  // 'close', not events.once: an aborted request emits 'error' first, which would reject once().
  app.addHook('onRequest', (request, _reply, next) => void (closed.push(new Promise((done) => request.raw.once('close', done))), next()));
  await app.register(plugin, { limiter: gatedLimiter, key: () => 'k' });
  app.post('/upload', async () => 'stored');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return { inner, waiting, closed, port };
}

async function storeOptions(store: StoreCase): Promise<{ store?: never }> {
  const made = await store.store();
  return made === undefined ? {} : ({ store: made } as never);
}

/** abortedPosts sends `n` POSTs that each leave after 10 of 1,000 body bytes, then lets their decisions land. */
async function abortedPosts(served: Awaited<ReturnType<typeof serve>>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    // A body Fastify parses (JSON): without a content type it answers 415 at once, never reading it.
    const headers = { 'content-type': 'application/json', 'content-length': '1000' };
    const client = httpRequest({ host: '127.0.0.1', port: served.port, path: '/upload', method: 'POST', headers });
    client.on('error', () => {});
    client.write('{"file": "');
    while (served.waiting.length === 0) await new Promise(setImmediate);
    client.destroy();
    await served.closed[served.closed.length - 1];
    (served.waiting.shift() as () => void)();
  }
  // The decisions land, and the work of each ends, within a few turns.
  for (let i = 0; i < 20; i++) await new Promise(setImmediate);
}

/** wholePost sends one POST with its whole body and answers its status (its decision let go as it comes). */
async function wholePost(served: Awaited<ReturnType<typeof serve>>): Promise<number> {
  const client = httpRequest({ host: '127.0.0.1', port: served.port, path: '/upload', method: 'POST', headers: { 'content-type': 'text/plain' } });
  client.end('hello');
  while (served.waiting.length === 0) await new Promise(setImmediate);
  (served.waiting.shift() as () => void)();
  const [res] = (await once(client, 'response')) as [IncomingMessage];
  res.resume();
  return res.statusCode as number;
}

for (const store of storeCases()) {
  describe(`an aborted POST body, decided after its client left (${store.name})`, () => {
    it(`gives its lease back at once: ${LIMIT} aborted uploads leave the route open`, async () => {
      const served = await serve(store);
      await abortedPosts(served, LIMIT);
      expect(await wholePost(served)).toBe(200);
    });

    it('catches an adapter that does not tell an unread body from a read one (mutant: the leases held)', async () => {
      const served = await serve(store, ignoresUnreadBody);
      await abortedPosts(served, LIMIT);
      expect(await wholePost(served)).toBe(429);
    });
  });
}
