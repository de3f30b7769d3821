/**
 * The default key's address is exactly `req.ip`, also where the adapter reads it without proxy-addr's
 * forwarding-header walk (an untrusted socket peer): for every `trust proxy` form Express documents,
 * with and without X-Forwarded-For, the key equals ipKey(req.ip) as the route handler then sees it;
 * and a request whose `ip` an earlier middleware redefined is keyed by that redefinition.
 */
import type { AddressInfo } from 'node:net';
import { ManualClock, type RateLimiter, TokenBucketLimiter, ipKey } from '@ratekeeper/core';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** serve answers each request with the key the limiter was asked for and the handler's req.ip. */
async function serve(trust: unknown, redefine?: string): Promise<(xff?: string) => Promise<{ key: string; ip: string }>> {
  const keys: string[] = [];
  const inner = new TokenBucketLimiter({ capacity: 1e6, refillPerSecond: 1, clock: new ManualClock(0) });
  const limiter = new Proxy(inner, {
    get: (target, name, receiver) => (name === 'consume' ? (key: string, cost?: number) => (keys.push(key), target.consume(key, cost)) : Reflect.get(target, name, receiver)),
  }) as RateLimiter;
  const app = express();
  app.set('trust proxy', trust);
  if (redefine !== undefined)
    app.use((req, _res, next) => {
      Object.defineProperty(req, 'ip', { value: redefine });
      next();
    });
  app.use(rateLimit({ limiter, proxyWarning: false }));
  app.get('/', (req, res) => res.json({ key: keys.at(-1), ip: req.ip }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  closers.push(() => server.close());
  const { port } = server.address() as AddressInfo;
  return async (xff) => (await fetch(`http://127.0.0.1:${port}/`, { headers: xff === undefined ? {} : { 'X-Forwarded-For': xff } })).json() as Promise<{ key: string; ip: string }>;
}

describe('the default key is req.ip', () => {
  const settings: unknown[] = [false, true, 0, 1, 2, 'loopback', '10.0.0.0/8', '127.0.0.1', ['10.0.0.0/8', '192.168.0.0/16'], (addr: string) => addr === '127.0.0.1'];
  for (const trust of settings) {
    it(`with trust proxy ${typeof trust === 'function' ? 'a function' : JSON.stringify(trust)}`, async () => {
      const get = await serve(trust);
      for (const xff of [undefined, '203.0.113.7', '203.0.113.7, 198.51.100.9', '10.1.1.1, 10.2.2.2']) {
        const { key, ip } = await get(xff);
        expect({ xff, key }).toEqual({ xff, key: ipKey(ip) });
      }
    });
  }

  it('follows an ip an earlier middleware defined on the request', async () => {
    const get = await serve(false, '198.51.100.200');
    expect(await get('203.0.113.7')).toEqual({ key: ipKey('198.51.100.200'), ip: '198.51.100.200' });
  });
});
