/**
 * No lease lost to a throw: a server handler built on `limit.run(request, { ip }, app)` (the step by
 * step form of the README) over a ConcurrencyLimiter of 3, on the memory store and on RedisStore (a
 * real redis-server, default options), served on Node over real HTTP: three requests whose app throws
 * (the runtime answers 500) give their leases back, and the key admits again; so do 3 throws among
 * requests in flight. The check-then-headers pattern it replaces (the leaks-on-throw mutant: a run
 * without the hand-over on a throw) locked the key for good after three throws: the same check
 * catches it.
 */
import { eventually, storeCases } from '@ratekeeper/adapter-contract';
import { ConcurrencyLimiter, type Store } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { type FetchRateLimit, type FetchRateLimitOptions, rateLimit } from '../src/index.js';
import { serveFetch } from './helpers.js';
import { leaksOnThrow } from './mutants/leaks-on-throw.js';

let serial = 0;

const app = (request: Request): Response => {
  if (new URL(request.url).searchParams.has('throw')) throw new Error('the app failed');
  return new Response('ok');
};

/** throwsGiveLeasesBack: three throwing requests, then one that must be admitted; every lease back. */
async function throwsGiveLeasesBack(store: Store<'async'> | undefined, factory: (o: FetchRateLimitOptions) => FetchRateLimit = rateLimit): Promise<void> {
  const limiter = new ConcurrencyLimiter<'async'>({ limit: 3, name: 'inflight', ...(store === undefined ? {} : { store }) });
  const key = `run-${process.pid}-${++serial}`;
  const limit = factory({ limiter, key: () => key });
  const errors: unknown[] = [];
  const { http } = serveFetch(async (request, env) => {
    try {
      return await limit.run(request, { ip: env.incoming.socket.remoteAddress }, app);
    } catch (error) {
      errors.push(error);
      return new Response('Internal Server Error', { status: 500 }); // the runtime's error handler
    }
  });
  for (let i = 0; i < 3; i++) expect((await http.get('/?throw=1')).status, `throwing request ${i}`).toBe(500);
  expect(errors.map(String)).toEqual(Array.from({ length: 3 }, () => 'Error: the app failed'));
  await eventually('every lease back after the throws', async () => (await limiter.peek(key, 3)).allowed, 2000);
  expect((await http.get('/')).status, 'a request after three throws').toBe(200);
}

describe.each(storeCases())('limit.run on the $name store', ({ store }) => {
  it('gives back the lease of every request whose app throws: the key admits again', async () => {
    await throwsGiveLeasesBack(await store());
  });

  it('the check catches the check-then-headers pattern, which keeps the lease of a throw (mutant)', async () => {
    await expect(throwsGiveLeasesBack(await store(), leaksOnThrow)).rejects.toThrow(/every lease back after the throws/);
  });
});

describe('limit.run', () => {
  it('answers the 429 without running the handler, and refuses a handler that is not a function', async () => {
    const limit = rateLimit({ limiter: new ConcurrencyLimiter({ limit: 1 }), key: () => 'k' });
    let ran = 0;
    const handler = () => (ran++, new Response('ok'));
    const first = new Request('http://localhost/');
    await limit(first, { ip: '127.0.0.1' }); // holds the one lease
    expect((await limit.run(new Request('http://localhost/'), { ip: '127.0.0.1' }, handler)).status).toBe(429);
    expect(ran).toBe(0);
    await expect(limit.run(new Request('http://localhost/'), { ip: '127.0.0.1' }, 'app' as never)).rejects.toThrow(
      new TypeError('rateLimit: run(request, client, handler): handler must be a function, got "app"'),
    );
  });
});
