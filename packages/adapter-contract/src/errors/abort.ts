/**
 * A client that goes away while a remote store is still deciding: when the decision arrives, the
 * middleware finishes its work on a destroyed socket without an error on the error path or an
 * unhandled rejection, and the server keeps serving. The same check runs on the adapter's
 * errors-on-abort mutant, which it must catch.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Driver } from '../driver.js';
import { gated } from '../support.js';

/** abortedClientsAreQuiet sends five requests that abort mid-decision, then one that waits. */
export async function abortedClientsAreQuiet<F>(driver: Driver<F>, factory: F): Promise<void> {
  const { limiter, waiting } = gated(new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock: new ManualClock(0) }));
  const closed: Promise<void>[] = [];
  const before = (req: { socket: { once(event: 'close', done: () => void): unknown } }) => void closed.push(new Promise((done) => req.socket.once('close', () => done())));
  const { server, http, errors, ran } = driver.serve({ limiter }, { factory, before });
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
  expect(ran()).toBe(3);
  const next = http.get('/').then((res) => res);
  while (waiting.length === 0) await new Promise(setImmediate);
  waiting.shift()!();
  expect((await next).status).toBe(429);
}

export function abortSuite<F>(drivers: readonly Driver<F>[], mutant: { errorsOnAbort: F }): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      it('finishes cleanly when the client aborted during the decision, allowed or denied', async () => {
        await abortedClientsAreQuiet(driver, driver.rateLimit);
      });

      it('the check catches an adapter that reports an aborted client as an error (mutant)', async () => {
        await expect(abortedClientsAreQuiet(driver, mutant.errorsOnAbort)).rejects.toThrow(/^errors on the error path/);
      });
    });
  }
}
