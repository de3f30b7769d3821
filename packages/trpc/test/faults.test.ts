/**
 * The store failure policy and a failing limiter, on every adapter: a store failing 'closed' answers
 * SERVICE_UNAVAILABLE (503) with Retry-After and runs nothing; a limiter whose promise rejects with a
 * secret answers INTERNAL_SERVER_ERROR (500) whose bytes hold no trace of it. The mutants (a closed
 * failure answered 429, the store's text forwarded) are caught by the same checks.
 */
import { SECRET, asyncLimiter } from '@ratekeeper/adapter-contract';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { closedAs429, forwardsRawError } from './mutants/middlewares.js';
import { ADAPTERS, type AdapterName, type Middleware, serveTrpc } from './support/servers.js';

const bucket = () => new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) });
type Make = (options: Parameters<typeof rateLimit>[0]) => Middleware;

async function closedIs503(adapter: AdapterName, make: Make): Promise<void> {
  const closed = asyncLimiter(bucket(), (d) => ({ ...d, allowed: false, failure: 'closed' }));
  const { get, ran } = await serveTrpc(adapter, (ip) => make({ limiter: closed, ...(ip === undefined ? {} : { ip }) }));
  const res = await get();
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.body.error?.data?.['code']).toBe('SERVICE_UNAVAILABLE');
  expect(ran.hello).toBe(0);
}

async function secretNeverLeaks(adapter: AdapterName, make: Make): Promise<void> {
  const broken = asyncLimiter(bucket(), () => Promise.reject(new Error(`connect ECONNREFUSED ${SECRET}`)));
  const { url, ran } = await serveTrpc(adapter, (ip) => make({ limiter: broken, ...(ip === undefined ? {} : { ip }) }));
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${url}/trpc/hello`);
    expect(res.status).toBe(500);
    expect(JSON.stringify([...res.headers]) + (await res.text())).not.toContain('hunter2');
  }
  expect(ran.hello).toBe(0);
}

describe.each(ADAPTERS)('tRPC on %s', (adapter) => {
  it("a 'closed' store failure answers SERVICE_UNAVAILABLE 503 with Retry-After", () => closedIs503(adapter, rateLimit));
  it('a limiter that rejects with a secret yields a 500 without it', () => secretNeverLeaks(adapter, rateLimit));
});

describe('mutants', () => {
  it('the check catches a closed failure answered as 429', async () => {
    await expect(closedIs503('Express', closedAs429)).rejects.toThrow(/expected 429 to be 503/);
  });
  it("the check catches a middleware that forwards the store's text", async () => {
    await expect(secretNeverLeaks('Express', forwardsRawError)).rejects.toThrow(/hunter2/);
  });
});
