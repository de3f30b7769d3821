/**
 * A client that goes away while a remote store is still deciding: when the decision arrives, the
 * middleware finishes its work on a destroyed socket without a write-after-end error, an unhandled
 * rejection or an 'error' event, and the server keeps serving.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Decision, ManualClock, type RateLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import type { ErrorRequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import type { Express, Factory } from './faults.js';
import { expresses, serve } from './helpers.js';
import { errorsOnAbort } from './mutants/errors-on-abort.js';

/** gated is an async limiter whose answers wait until the test opens the gate. */
function gated(inner: RateLimiter) {
  const waiting: (() => void)[] = [];
  const limiter: RateLimiter<'async'> = {
    mode: 'async',
    policies: inner.policies,
    consume: (key, cost) => new Promise<Decision>((resolve) => waiting.push(() => resolve(inner.consume(key, cost) as Decision))),
    peek: async (key, cost) => inner.peek(key, cost),
    allow: async (key, cost) => inner.allow(key, cost),
    reset: async (key) => inner.reset(key),
  };
  return { limiter, waiting };
}

/** abortedClientsAreQuiet sends five requests that abort mid-decision, then one that waits. */
async function abortedClientsAreQuiet(express: Express, factory: Factory): Promise<void> {
    const { limiter, waiting } = gated(new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock: new ManualClock(0) }));
    const app = express();
    const errors: unknown[] = [];
    const closed: Promise<void>[] = [];
    let ran = 0;
    app.use((req, _res, next) => {
      closed.push(new Promise((done) => req.socket.once('close', () => done())));
      next();
    });
    app.use(factory({ limiter }));
    app.get('/', (_req, res) => void (ran++, res.send('ok')));
    const record: ErrorRequestHandler = (error, _req, _res, next) => void (errors.push(error), next(error));
    app.use(record);
    const { server, http } = serve(app);
    if (!server.listening) await new Promise((done) => server.once('listening', done));
    const { port } = server.address() as AddressInfo;

    for (let i = 0; i < 5; i++) {
      const client = httpRequest({ host: '127.0.0.1', port, path: '/' });
      client.on('error', () => {});
      client.end();
      while (waiting.length === 0) await new Promise(setImmediate);
      client.destroy();
      await closed[i];
      waiting.shift()!();
      await new Promise(setImmediate);
    }
    expect(errors.map(String), 'errors on the error path').toEqual([]);
    expect(ran).toBe(3);
    const next = http.get('/').then((res) => res);
    while (waiting.length === 0) await new Promise(setImmediate);
    waiting.shift()!();
    expect((await next).status).toBe(429);
}

describe.each(expresses)('%s', (_, express) => {
  it('finishes cleanly when the client aborted during the decision, allowed or denied', async () => {
    await abortedClientsAreQuiet(express, rateLimit);
  });

  it('the check catches an adapter that reports an aborted client as an error (mutant)', async () => {
    await expect(abortedClientsAreQuiet(express, errorsOnAbort)).rejects.toThrow(/^errors on the error path/);
  });
});
