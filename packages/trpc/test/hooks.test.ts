/**
 * The hooks on a call's own options (`{ ctx, path, type, input }`): key from the context (a user id),
 * cost from the input, skip; hostile ones never break a response or reach a header: a throwing key is
 * an INTERNAL_SERVER_ERROR with nothing counted, a key full of CR/LF is counted but never written, a
 * skip answering a non-boolean is an error rather than a silent count. A call whose client left while
 * its async key was looked up is not counted (the mutant that loses the abort signal is).
 */
import { counting, expectPrintableHeaders, withoutEscapes } from '@ratekeeper/adapter-contract';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { ignoresGone } from './mutants/middlewares.js';
import { ADAPTERS, serveTrpc } from './support/servers.js';

const HOSTILE = 'evil\r\nSet-Cookie: stolen=1\r\n\u0000é中文';
const bucket = (capacity = 2) => counting(new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) }));

describe.each(ADAPTERS)('hooks on %s', (adapter) => {
  it('keys by the user the context names, each user in its own bucket', async () => {
    const counted = bucket(1);
    const { url } = await serveTrpc(adapter, () =>
      rateLimit({
        limiter: counted.limiter,
        key: ({ ctx }) =>
          `user:${(ctx as { req: { headers: { get?: (n: string) => string | null } & Record<string, unknown> } }).req.headers.get?.('x-user') ?? (ctx as { req: { headers: Record<string, string> } }).req.headers['x-user']}`,
      }),
    );
    const as = (user: string) => fetch(`${url}/trpc/hello`, { headers: { 'x-user': user } }).then((r) => r.status);
    expect([await as('a'), await as('b'), await as('a')]).toEqual([200, 200, 429]);
    expect(counted.keys).toEqual(['user:a', 'user:b', 'user:a']);
  });

  it('answers a throwing key INTERNAL_SERVER_ERROR, uncounted, and never writes a hostile key', async () => {
    const throwing = bucket();
    const broken = await serveTrpc(adapter, () =>
      rateLimit({
        limiter: throwing.limiter,
        key: () => {
          throw new Error('key broke');
        },
      }),
    );
    const res = await broken.get();
    expect([res.status, res.body.error?.data?.['code'], broken.ran.hello, throwing.keys.length]).toEqual([500, 'INTERNAL_SERVER_ERROR', 0, 0]);
    const hostile = bucket(1);
    const { get } = await serveTrpc(adapter, () => rateLimit({ limiter: hostile.limiter, key: () => HOSTILE }));
    for (const want of [200, 429]) {
      const answer = await get();
      expect(answer.status).toBe(want);
      const headers = Object.fromEntries(answer.headers);
      expectPrintableHeaders(headers);
      expect(JSON.stringify(headers)).not.toContain('evil');
    }
    expect(hostile.keys).toEqual([HOSTILE, HOSTILE]);
  });

  it('refuses a skip that answers a non-boolean, and skips uncounted, without fields, on true', async () => {
    const counted = bucket();
    const odd = await serveTrpc(adapter, (ip) => rateLimit({ limiter: counted.limiter, skip: () => 'yes' as never, ...(ip === undefined ? {} : { ip }) }));
    expect((await odd.get()).status).toBe(500);
    const skipping = await serveTrpc(adapter, (ip) => rateLimit({ limiter: counted.limiter, skip: ({ path }) => path === 'hello', ...(ip === undefined ? {} : { ip }) }));
    const res = await skipping.get();
    expect([res.status, res.headers.get('ratelimit')]).toEqual([200, null]);
    expect(counted.keys).toHaveLength(0);
  });
});

/**
 * leftDuringLookup aborts a call while its async key is looked up, waits until the server has seen the
 * client go (its response's 'close'), then lets the lookup finish; answers the consumes made.
 */
async function leftDuringLookup(make: typeof rateLimit): Promise<number> {
  const counted = bucket();
  let looked: (gone: { lookup: (key: string) => void; closed: Promise<unknown> }) => void = () => {};
  const looking = new Promise<{ lookup: (key: string) => void; closed: Promise<unknown> }>((resolve) => (looked = resolve));
  const key = ({ ctx }: { ctx: unknown }) =>
    new Promise<string>((lookup) => {
      const res = (ctx as { res: { once(event: 'close', done: () => void): unknown } }).res;
      looked({ lookup, closed: new Promise((done) => res.once('close', () => done(undefined))) });
    });
  const { url } = await serveTrpc('Express', () => make({ limiter: counted.limiter, key }));
  const aborter = new AbortController();
  const sent = fetch(`${url}/trpc/hello`, { signal: aborter.signal }).catch(() => {});
  const { lookup, closed } = await looking;
  aborter.abort();
  await closed;
  lookup('k');
  await sent;
  await new Promise((resolve) => setImmediate(resolve));
  return counted.keys.length;
}

describe('a client that leaves during the lookup', () => {
  it('is not counted, and nothing escapes', async () => {
    await withoutEscapes(async () => expect(await leftDuringLookup(rateLimit)).toBe(0));
  });

  it('the check catches a middleware that loses the abort signal (mutant)', async () => {
    expect(await leftDuringLookup(ignoresGone as typeof rateLimit)).toBe(1);
  });
});
