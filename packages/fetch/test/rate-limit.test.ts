/**
 * What the fetch adapter adds to the contract: options validated at creation, the address passed
 * explicitly (none is never a shared bucket), the application's own Response getting the headers
 * (immutable ones copied, never thrown on), and wrap around a whole handler.
 */
import { refusalSuite, validationSuite } from '@ratekeeper/adapter-contract';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it, vi } from 'vitest';
import { type FetchRateLimit, type FetchRateLimitOptions, rateLimit } from '../src/index.js';
import { sharedBucketWithoutIp } from './mutants/shared-bucket-without-ip.js';

const bucket = (capacity: number) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) });
const get = (path = '/') => new Request(`http://localhost${path}`);

describe('rateLimit options', () => {
  validationSuite(rateLimit);
  refusalSuite(rateLimit, {
    adapter: '@ratekeeper/fetch',
    message: "write a handler instead: handler: (request) => new Response('Too many requests') (a Response whose status you leave at 200 is answered as 429)",
    statusCode: "write a handler that sets it: handler: (request) => new Response('…', { status: 503 }) (the default is 429)",
  });

  it('refuses a framework other than fetch or Hono, naming it', () => {
    expect(() => rateLimit({}, undefined, 'express' as never)).toThrowError(new TypeError(`rateLimit: framework must be 'fetch' or 'hono', got "express"`));
  });

  it('returns a named async check taking the request and the client address', () => {
    const check = rateLimit();
    expect(check.name).toBe('rateLimit');
    expect(check.length).toBe(2);
    expect(check.constructor.name).toBe('AsyncFunction');
  });

  it.each([
    [() => rateLimit().wrap('handler' as never, () => '1.2.3.4'), 'rateLimit: wrap(handler, ip): handler must be a function, got "handler"'],
    [() => rateLimit().wrap(() => new Response(), undefined as never), 'rateLimit: wrap(handler, ip): ip must be a function, got undefined'],
    [() => rateLimit({}, 'request' as never), 'rateLimit: raw must be a function, got "request"'],
    [
      () => rateLimit({ proxyWarning: true } as never),
      'rateLimit: proxyWarning is not taken by @ratekeeper/fetch, got true: the client address is the one passed to each check ({ ip }), so there is no proxy setting to check',
    ],
  ])('wrap and raw refuse what they cannot call: %#', (create, message) => {
    expect(create).toThrow(TypeError);
    expect(create).toThrow(message);
  });
});

/**
 * addresslessNeverShared: addressless requests (the unspecified address included: a fallback such as
 * `?? '0.0.0.0'` is no client) are refused, and never spend a bucket an addressed client has.
 */
async function addresslessNeverShared(factory: (o: FetchRateLimitOptions) => FetchRateLimit): Promise<void> {
  const limit = factory({ limiter: bucket(1) });
  const outcomes = [];
  for (const client of [{ ip: undefined }, { ip: '' }, { ip: null }, { ip: '0.0.0.0' }, { ip: '::' }, { ip: '192.0.2.1' }]) {
    outcomes.push(
      await limit(get(), client).then(
        (r) => r?.status ?? 200,
        (e: Error) => e.name,
      ),
    );
  }
  expect(outcomes).toEqual(['MissingIpError', 'MissingIpError', 'MissingIpError', 'MissingIpError', 'MissingIpError', 200]);
}

describe('the client address', () => {
  it('a request without an address never shares a bucket', async () => {
    await addresslessNeverShared(rateLimit);
  });

  it('the check catches a check that counts addressless requests under one fallback key (mutant)', async () => {
    await expect(addresslessNeverShared(sharedBucketWithoutIp)).rejects.toThrow(/expected \[ 200, 429, 429,/);
  });

  it('refuses a bare string where { ip } belongs, as a TypeError', async () => {
    await expect(rateLimit()(get(), '192.0.2.1' as never)).rejects.toThrow(new TypeError('rateLimit: the client must be { ip }, got "192.0.2.1"'));
  });

  it.each([undefined, {}, { ip: undefined }, { ip: null }, { ip: '' }, { ip: 'unknown' }])('%j rejects the check with a MissingIpError and counts nothing', async (client) => {
    const limit = rateLimit({ limiter: bucket(1) });
    for (let i = 0; i < 3; i++) await expect(limit(get(), client)).rejects.toThrow(expect.objectContaining({ name: 'MissingIpError', status: 500 }));
    expect(await limit(get(), { ip: '192.0.2.1' })).toBeUndefined();
  });

  it("missingIp: 'skip' lets an addressless request through uncounted and without headers", async () => {
    const limit = rateLimit({ limiter: bucket(1), missingIp: 'skip' });
    const request = get();
    for (let i = 0; i < 3; i++) expect(await limit(request, { ip: null })).toBeUndefined();
    expect(limit.decision(request)).toBeUndefined();
    expect(limit.headers(request, new Response('ok')).headers.get('ratelimit')).toBeNull();
  });

  it('two addresses are two buckets; one /56 is one', async () => {
    const limit = rateLimit({ limiter: bucket(1) });
    const statuses = [];
    for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.1', '2001:db8:0:100::1', '2001:db8:0:1ff::2']) statuses.push((await limit(get(), { ip }))?.status ?? 200);
    expect(statuses).toEqual([200, 200, 429, 200, 429]);
  });
});

describe("the application's response", () => {
  it('headers puts the decision of the check on the response, and decision reads it', async () => {
    const limit = rateLimit({ limiter: bucket(2) });
    const request = get();
    expect(await limit(request, { ip: '192.0.2.1' })).toBeUndefined();
    expect(limit.decision(request)).toMatchObject({ allowed: true, remaining: 1 });
    const response = new Response('ok', { headers: { 'X-App': '1' } });
    expect(limit.headers(request, response)).toBe(response);
    expect(Object.fromEntries(response.headers)).toEqual({ 'content-type': 'text/plain;charset=UTF-8', 'x-app': '1', 'ratelimit-policy': '"b";q=2;w=2', ratelimit: '"b";r=1;t=1' });
  });

  it('two limiters on one request each remember their own decision and append their own items', async () => {
    const outer = rateLimit({ limiter: new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, name: 'outer', clock: new ManualClock(0) }) });
    const inner = rateLimit({ limiter: bucket(2) });
    const request = get();
    expect(await outer(request, { ip: '192.0.2.1' })).toBeUndefined();
    expect(await inner(request, { ip: '192.0.2.1' })).toBeUndefined();
    expect([outer.decision(request)?.policy.name, inner.decision(request)?.policy.name]).toEqual(['outer', 'b']);
    const response = inner.headers(request, outer.headers(request, new Response('ok')));
    expect(response.headers.get('ratelimit')).toBe('"outer";r=4;t=1, "b";r=1;t=1');
  });

  it.each([
    ['a frozen Request', () => Object.freeze(get())],
    [
      'a Proxy that refuses every store',
      () =>
        new Proxy(get(), {
          set: () => false,
          get: (target, name) => {
            const value = Reflect.get(target, name, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }),
    ],
  ])('remembers the decision of %s, which takes no property, all the same', async (_label, make) => {
    const limit = rateLimit({ limiter: bucket(2) });
    const request = make();
    expect(await limit(request, { ip: '192.0.2.1' })).toBeUndefined();
    expect(limit.decision(request)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limit.headers(request, new Response('ok')).headers.get('ratelimit')).toBe('"b";r=1;t=1');
    expect(limit.decision(get())).toBeUndefined();
  });

  it('copies a response whose headers are immutable (a redirect) and keeps its status, headers and body', async () => {
    const limit = rateLimit({ limiter: bucket(2) });
    const request = get();
    await limit(request, { ip: '192.0.2.1' });
    const redirect = Response.redirect('http://localhost/elsewhere', 302);
    expect(() => redirect.headers.set('x', '1')).toThrow(TypeError);
    const out = limit.headers(request, redirect);
    expect([out.status, out.headers.get('location'), out.headers.get('ratelimit')]).toEqual([302, 'http://localhost/elsewhere', '"b";r=1;t=1']);
  });

  it('puts the headers on a handler answer with immutable headers too', async () => {
    const limit = rateLimit({ limiter: bucket(1), handler: () => Response.redirect('http://localhost/slow-down', 303) });
    await limit(get(), { ip: '192.0.2.1' });
    const denied = (await limit(get(), { ip: '192.0.2.1' }))!;
    expect([denied.status, denied.headers.get('location'), denied.headers.get('retry-after'), denied.headers.get('ratelimit')]).toEqual([
      303,
      'http://localhost/slow-down',
      '1',
      '"b";r=0;t=1',
    ]);
  });

  it('writeHeaders writes a decision through any setter, appending the List fields', async () => {
    const limit = rateLimit({ limiter: bucket(1), headers: 'both' });
    const request = get();
    await limit(request, { ip: '192.0.2.1' });
    const written: [string, string, boolean][] = [];
    limit.writeHeaders(limit.decision(request)!, (name, value, append) => void written.push([name, value, append]));
    expect(written).toEqual([
      ['RateLimit-Policy', '"b";q=1;w=1', true],
      ['RateLimit', '"b";r=0;t=1', true],
      ['X-RateLimit-Limit', '1', false],
      ['X-RateLimit-Remaining', '0', false],
      ['X-RateLimit-Reset', '1', false],
    ]);
  });
});

describe('the default answer', () => {
  it("takes the plan's cached body: with plans, a 429 of any plan builds its body once", async () => {
    const plans = { free: bucket(1), paid: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, name: 'p', clock: new ManualClock(0) }) };
    const limit = rateLimit<Request>({ plans, plan: (request) => (request.headers.get('x-plan') === 'paid' ? 'paid' : 'free') });
    const paid = () => new Request('http://localhost/', { headers: { 'x-plan': 'paid' } });
    expect(await limit(paid(), { ip: '192.0.2.1' })).toBeUndefined();
    const first = (await limit(paid(), { ip: '192.0.2.1' })) as Response;
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const again = (await limit(paid(), { ip: '192.0.2.1' })) as Response;
      expect(stringify).not.toHaveBeenCalled();
      expect([again.status, await again.text()]).toEqual([first.status, await first.text()]);
    } finally {
      stringify.mockRestore();
    }
    expect(JSON.parse(await ((await limit(paid(), { ip: '192.0.2.1' })) as Response).text())).toMatchObject({ status: 429 });
  });
});

describe('wrap', () => {
  it('checks, runs the handler once per admitted request with its own arguments, and adds the headers', async () => {
    const seen: string[] = [];
    const handler = rateLimit({ limiter: bucket(2) }).wrap(
      (request: Request, info: { remoteAddr: { hostname: string } }) => (seen.push(info.remoteAddr.hostname), new Response('ok')),
      (_request, info) => info.remoteAddr.hostname,
    );
    const info = { remoteAddr: { hostname: '192.0.2.9' } };
    const responses = [];
    for (let i = 0; i < 3; i++) responses.push(await handler(get(), info));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(responses.map((r) => r.headers.get('ratelimit'))).toEqual(['"b";r=1;t=1', '"b";r=0;t=2', '"b";r=0;t=1']);
    expect(await responses[2]!.json()).toMatchObject({ status: 429, 'violated-policies': ['b'] });
    expect(responses[2]!.headers.get('content-type')).toBe('application/problem+json');
    expect(seen).toEqual(['192.0.2.9', '192.0.2.9']);
  });

  it('answers in the same turn when the limiter and the handler are synchronous (the memory store), a promise otherwise', async () => {
    const limit = rateLimit({ limiter: bucket(1) });
    const sync = limit.wrap(
      () => new Response('ok'),
      () => '192.0.2.10',
    );
    const admitted = sync(get());
    const denied = sync(get());
    expect(admitted).toBeInstanceOf(Response);
    expect(denied).toBeInstanceOf(Response);
    expect([(admitted as Response).status, (denied as Response).status]).toEqual([200, 429]);
    expect((denied as Response).headers.get('retry-after')).toBe('1');
    expect((denied as Response).headers.get('ratelimit-policy')).toBe('"b";q=1;w=1');
    const later = rateLimit({ limiter: bucket(1) }).wrap(
      async () => new Response('ok'),
      () => '192.0.2.11',
    );
    const pending = later(get());
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).headers.get('ratelimit')).toBe('"b";r=0;t=1');
  });

  it("awaits a handler's thenable that is not a native Promise, as before", async () => {
    const thenable = {
      // biome-ignore lint/suspicious/noThenProperty: the test needs a thenable that is not a native Promise
      then: (resolve: (r: Response) => void) => resolve(new Response('ok')),
    };
    const handler = rateLimit({ limiter: bucket(2) }).wrap(
      () => thenable as unknown as Promise<Response>,
      () => '192.0.2.13',
    );
    const response = await handler(get());
    expect([response.status, response.headers.get('ratelimit'), await response.text()]).toEqual([200, '"b";r=1;t=1', 'ok']);
  });

  it('rejects (never throws) when the handler throws', async () => {
    const handler = rateLimit({ limiter: bucket(2) }).wrap(
      () => {
        throw new Error('boom');
      },
      () => '192.0.2.12',
    );
    let result: unknown;
    expect(() => {
      result = handler(get());
    }).not.toThrow();
    await expect(result).rejects.toThrow('boom');
  });

  it('rejects with the MissingIpError when ip() finds no address, before the handler runs', async () => {
    let ran = 0;
    const handler = rateLimit().wrap(
      () => (ran++, new Response('ok')),
      () => undefined,
    );
    await expect(handler(get())).rejects.toThrow(/has no usable client IP/);
    expect(ran).toBe(0);
  });
});
