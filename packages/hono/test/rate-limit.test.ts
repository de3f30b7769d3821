/**
 * What the Hono middleware adds to the contract: options validated at creation (including where the
 * address comes from), the decision on `c.var.rateLimit` with its type, and the headers on whatever
 * the route returns. Driven through `app.request`, Hono's own in-process fetch.
 */
import { refusalSuite, validationSuite } from '@ratekeeper/adapter-contract';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { MiddlewareHandler } from 'hono';
import { type HonoRateLimitOptions, type RateLimitVariables, rateLimit } from '../src/index.js';
import { headersBeforeNext } from './mutants/headers-before-next.js';

const bucket = (capacity: number) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) });
const fromHeader = (c: { req: { header(name: string): string | undefined } }) => c.req.header('x-client');
const isOptions = (o: unknown) => typeof o === 'object' && o !== null && !Array.isArray(o);

describe('rateLimit options', () => {
  // The contract's table, with an address source added wherever the options are an object.
  validationSuite(((o: unknown) => rateLimit((isOptions(o) && !('ip' in (o as object)) ? { ip: fromHeader, ...(o as object) } : o) as never)) as never);
  // Hono's terms, although @ratekeeper/fetch checks the options.
  refusalSuite(((o: object) => rateLimit({ ip: fromHeader, ...o } as never)) as never, {
    adapter: '@ratekeeper/hono',
    message: "write a handler instead: handler: (c) => c.text('Too many requests') (a Response whose status you leave at 200 is answered as 429)",
    statusCode: "write a handler that sets it: handler: (c) => c.text('…', 503) (the default is 429)",
  });

  it('returns a named two-argument middleware that answers Hono with a promise on every path, a synchronous decision included', async () => {
    const middleware = rateLimit({ ip: fromHeader, limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0) }) });
    expect([middleware.name, middleware.length]).toEqual(['rateLimit', 2]);
    const returned: unknown[] = [];
    const app = new Hono();
    app.use((c, next) => {
      const answer = middleware(c as never, next);
      returned.push(answer);
      return answer;
    });
    app.get('/', (c) => c.text('ok'));
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await app.request('/', { headers: { 'x-client': '192.0.2.1' } })).status);
    expect(statuses).toEqual([200, 429]);
    expect(returned.map((r) => r instanceof Promise)).toEqual([true, true]);
  });

  it.each([
    [
      undefined,
      'rateLimit: say where the client address comes from: getConnInfo (from hono/bun, hono/deno, hono/cloudflare-workers or @hono/node-server/conninfo), ip(c), or key(c)',
    ],
    [{ algorithm: 'token-bucket' }, /^rateLimit: say where the client address comes from/],
    [{ ip: 'x-real-ip' }, 'rateLimit: ip must be a function, got "x-real-ip"'],
    [{ getConnInfo: {} }, 'rateLimit: getConnInfo must be a function, got an object'],
    [{ ip: fromHeader, getConnInfo: () => ({ remote: {} }) }, 'rateLimit: give either getConnInfo or ip, not both'],
    [
      { ip: fromHeader, proxyWarning: false },
      'rateLimit: proxyWarning is not taken by @ratekeeper/hono, got false: the client address comes from getConnInfo or ip(c), so there is no proxy setting to check',
    ],
  ])('refuses %j with a TypeError', (options, message) => {
    expect(() => rateLimit(options as never)).toThrow(TypeError);
    expect(() => rateLimit(options as never)).toThrow(message);
  });

  it('needs no address source when key says what to count', async () => {
    const app = new Hono().use(rateLimit({ limiter: bucket(1), key: (c) => c.req.header('x-api-key') ?? 'anonymous' })).get('/', (c) => c.text('ok'));
    expect((await app.request('/', { headers: { 'x-api-key': 'a' } })).status).toBe(200);
    expect((await app.request('/', { headers: { 'x-api-key': 'a' } })).status).toBe(429);
  });
});

/** headersReachOwnResponses: a route's own Response, mutable or not, carries the RateLimit fields. */
async function headersReachOwnResponses(factory: (o: HonoRateLimitOptions) => MiddlewareHandler): Promise<void> {
  const app = new Hono().use(factory({ limiter: bucket(2), ip: fromHeader }));
  app.get('/own', () => new Response('own', { headers: { 'X-App': '1' } }));
  app.get('/redirect', () => Response.redirect('http://localhost/elsewhere', 302));
  const own = await app.request('/own', { headers: { 'x-client': '192.0.2.1' } });
  expect([own.headers.get('x-app'), own.headers.get('ratelimit')]).toEqual(['1', '"b";r=1;t=1']);
  const moved = await app.request('/redirect', { headers: { 'x-client': '192.0.2.1' } });
  expect([moved.status, moved.headers.get('location'), moved.headers.get('ratelimit')]).toEqual([302, 'http://localhost/elsewhere', '"b";r=0;t=2']);
}

describe('the middleware', () => {
  it('sets c.var.rateLimit, typed, for the routes after it', async () => {
    const app = new Hono<{ Variables: RateLimitVariables }>();
    app.use(rateLimit({ limiter: bucket(3), ip: fromHeader }));
    app.get('/', (c) => c.json({ remaining: c.var.rateLimit.remaining, policy: c.get('rateLimit').policy.name }));
    const res = await app.request('/', { headers: { 'x-client': '192.0.2.1' } });
    expect(await res.json()).toEqual({ remaining: 2, policy: 'b' });
  });

  it('uses getConnInfo’s remote address, and answers 500 through onError when it has none', async () => {
    const errors: string[] = [];
    const addresses = ['192.0.2.1', '192.0.2.1', undefined, '192.0.2.2'];
    const app = new Hono();
    app.onError((error, c) => (errors.push(error.name), c.text('Internal Server Error', 500)));
    app.use(rateLimit({ limiter: bucket(1), getConnInfo: () => ({ remote: { address: addresses.shift() } }) }));
    app.get('/', (c) => c.text('ok'));
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await app.request('/')).status);
    expect(statuses).toEqual([200, 429, 500, 200]);
    expect(errors).toEqual(['MissingIpError']);
  });

  it('puts the headers on a Response the route builds itself, even one with immutable headers', async () => {
    await headersReachOwnResponses(rateLimit);
  });

  it('the check catches middleware that writes the headers before next() (mutant)', async () => {
    await expect(headersReachOwnResponses(headersBeforeNext)).rejects.toThrow(/expected \[ '1', null \]/);
  });

  it('a handler answers in Hono terms, with Retry-After and the RateLimit fields added', async () => {
    const app = new Hono().use(rateLimit({ limiter: bucket(1), ip: fromHeader, handler: (c, d) => c.json({ waitMs: d.retryAfterMs }, 429) }));
    app.get('/', (c) => c.text('ok'));
    await app.request('/', { headers: { 'x-client': '192.0.2.1' } });
    const denied = await app.request('/', { headers: { 'x-client': '192.0.2.1' } });
    expect([denied.status, denied.headers.get('retry-after'), denied.headers.get('ratelimit'), await denied.json()]).toEqual([429, '1', '"b";r=0;t=1', { waitMs: 1000 }]);
  });
});
