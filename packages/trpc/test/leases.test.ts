/**
 * A concurrency limit covers the resolver's work: the lease taken when the middleware admits a call
 * is held until `next()` settles (the resolver returned or threw), on every adapter, so a second call
 * meanwhile is denied TOO_MANY_REQUESTS, and one after it ends is admitted; a resolver that throws
 * gives its lease back too. The mutant that releases at admission lets the second call in.
 */
import { ConcurrencyLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { releasesAtAdmission } from './mutants/middlewares.js';
import { ADAPTERS, type AdapterName, type Middleware, serveTrpc } from './support/servers.js';

async function heldUntilDone(adapter: AdapterName, make: (limiter: ConcurrencyLimiter) => Middleware): Promise<void> {
  const limiter = new ConcurrencyLimiter({ limit: 1, name: 'inflight' });
  const { client, get, working } = await serveTrpc(adapter, () => make(limiter));
  const first = client.work.query();
  first.catch(() => {}); // a failing check leaves it pending until the server closes
  while (working.length === 0) await new Promise((resolve) => setImmediate(resolve));
  const second = await get('hello');
  expect(second.status, 'a call while the lease is held').toBe(429);
  expect(second.headers.get('ratelimit-policy')).toBe('"inflight";q=1;qu="concurrent-requests"');
  working.shift()!();
  expect(await first).toBe('done');
  expect((await get('hello')).status).toBe(200);
  expect((await get('fail')).status).toBe(400);
  expect((await get('hello')).status).toBe(200);
}

describe.each(ADAPTERS)('leases on %s', (adapter) => {
  it('holds the lease until the resolver ends, a failing one included', () => heldUntilDone(adapter, (limiter) => rateLimit({ limiter, key: () => 'k' })));
});

it('the check catches a middleware that releases at admission (mutant)', async () => {
  await expect(heldUntilDone('Express', (limiter) => releasesAtAdmission({ limiter, key: () => 'k' }))).rejects.toThrow(/a call while the lease is held/);
});
