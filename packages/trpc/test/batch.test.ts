/**
 * httpBatchLink sends many calls in one HTTP request; each call is one procedure call, and each is
 * counted: a batch of 50 against a limit of 30 admits exactly 30 and denies 20 with
 * TOO_MANY_REQUESTS, on every adapter, the response carrying Retry-After. The mutant that counts a
 * batch once (by its HTTP request) admits all 50 and is caught.
 */
import { counting } from '@ratekeeper/adapter-contract';
import { ManualClock, SlidingWindowLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { countsBatchOnce } from './mutants/middlewares.js';
import { ADAPTERS, type Middleware, serveTrpc } from './support/servers.js';

const limit30 = () => counting(new SlidingWindowLimiter({ limit: 30, windowMs: 60_000, name: 'calls', clock: new ManualClock(0) }));

/** fifty sends 50 `hello` calls as one batch; answers how many succeeded, the denials' codes, the limiter's consume calls. */
async function fifty(adapter: (typeof ADAPTERS)[number], make: (options: Parameters<typeof rateLimit>[0]) => Middleware) {
  const counted = limit30();
  const { batch, ran } = await serveTrpc(adapter, (ip) => make({ limiter: counted.limiter, ...(ip === undefined ? {} : { ip }) }));
  const results = await Promise.allSettled(Array.from({ length: 50 }, () => batch.hello.query()));
  const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { data?: { code?: string } }).data?.code] : []));
  return { ok: results.filter((r) => r.status === 'fulfilled').length, codes, consumed: counted.keys.length, ran: ran.hello };
}

describe.each(ADAPTERS)('a batch of 50 calls on %s', (adapter) => {
  it('costs 50: exactly 30 admitted, 20 TOO_MANY_REQUESTS, 50 consumes', async () => {
    const { ok, codes, consumed, ran } = await fifty(adapter, rateLimit);
    expect(ok).toBe(30);
    expect(codes).toEqual(new Array(20).fill('TOO_MANY_REQUESTS'));
    expect(consumed).toBe(50);
    expect(ran).toBe(30);
  });
});

it('catches a middleware that counts a batch once (mutant): 50 admitted', async () => {
  const { ok } = await fifty('Express', countsBatchOnce);
  expect(ok).toBe(50);
});
