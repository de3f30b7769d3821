/**
 * Route keys (route-key.ts): one key per (route template, client), whatever characters either holds;
 * no route is a bucket of its own; a missing client is a MissingIpError, which decide reads as a
 * request without a usable IP (`missingIp`), and the key hook is handed the default key as `client`,
 * on the synchronous path and after an async hook alike.
 */
import { describe, expect, it } from 'vitest';
import { type Decision, FixedWindowLimiter, ManualClock, MissingIpError } from '../../src/index.js';
import { prepareRateLimit, routeKeyOf } from '../../src/adapter.js';
import { counting } from './support.js';

type Req = { readonly route: string | undefined };
const window = () => counting(new FixedWindowLimiter({ limit: 2, windowMs: 60_000, clock: new ManualClock(1_700_000_000_000) }));

describe('routeKeyOf', () => {
  it.each<[string, Parameters<typeof routeKeyOf>[0], string, string]>([
    ['a template', '/users/:id', '1.2.3.4', '10:/users/:id 1.2.3.4'],
    ['no route', undefined, '1.2.3.4', '0: 1.2.3.4'],
    ['no route (null)', null, '1.2.3.4', '0: 1.2.3.4'],
    ['a RegExp', /^\/a$/i, '1.2.3.4', '8:/^\\/a$/i 1.2.3.4'],
    ['a list', ['/a', '/b'], 'user:7', '5:/a,/b user:7'],
  ])('writes %s with its length first', (_what, route, client, key) => {
    expect(routeKeyOf(route, client)).toBe(key);
  });

  it('keeps (route, client) pairs apart whatever their characters: no route text can pose as a client', () => {
    const pairs: [string, string][] = [
      ['/a b', 'c'],
      ['/a', 'b c'],
      ['/a 1', '2'],
      ['/a', '1 2'],
      ['', '0: x'],
      ['0:', 'x'],
    ];
    const keys = new Set(pairs.map(([route, client]) => routeKeyOf(route, client)));
    expect(keys.size).toBe(pairs.length);
  });

  it('refuses a missing client with a MissingIpError, never a shared bucket', () => {
    expect(() => routeKeyOf('/a', undefined)).toThrow(MissingIpError);
    expect(() => routeKeyOf('/a', '')).toThrow(MissingIpError);
  });

  it('refuses a client or template of the wrong type', () => {
    expect(() => routeKeyOf('/a', 7 as never)).toThrow('routeKey: client must be a string, got 7');
    expect(() => routeKeyOf(7 as never, '1.2.3.4')).toThrow('routeKey: a route template must be a string, a RegExp or a list of them, got 7');
  });
});

describe('key(req, client)', () => {
  const byRoute = (req: Req, client: string | undefined) => routeKeyOf(req.route, client);

  it("hands the key the client's default key: the IP's, IPv6 grouped by ipv6Subnet", () => {
    const { limiter, calls } = window();
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: byRoute, ipv6Subnet: 48 });
    void plan.decide({ route: '/a' }, '::ffff:1.2.3.4');
    void plan.decide({ route: '/a' }, '2001:db8:1:2::1');
    expect(calls.map(([k]) => k)).toEqual(['2:/a 1.2.3.4', '2:/a 2001:db8:1::/48']);
  });

  it('hands it undefined for a request without a usable IP', () => {
    const seen: unknown[] = [];
    const { limiter } = window();
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: (_r, client) => (seen.push(client), 'k') });
    void plan.decide({ route: '/a' }, 'unknown');
    expect(seen).toEqual([undefined]);
  });

  it.each(['sync', 'async'] as const)("reads a %s key's MissingIpError as no usable IP: rejected by default, uncounted with missingIp 'skip'", async (mode) => {
    const key = mode === 'sync' ? byRoute : (req: Req, client: string | undefined) => Promise.resolve().then(() => byRoute(req, client));
    const { limiter, calls } = window();
    const rejecting = prepareRateLimit<Req>('rateLimit', { limiter, key });
    await expect(async () => rejecting.decide({ route: '/a' }, undefined)).rejects.toThrow(
      "rateLimit: the request has no usable client IP; check the framework's trust-proxy setting, give a key function, or set missingIp: 'skip'",
    );
    const skipping = prepareRateLimit<Req>('rateLimit', { limiter, key, missingIp: 'skip' });
    expect(await skipping.decide({ route: '/a' }, undefined)).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('counts one route in one bucket per client, and each route and client apart', () => {
    const { limiter } = window();
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: byRoute });
    const allowed = (route: string | undefined, ip: string) => (plan.decide({ route }, ip) as Decision).allowed;
    expect([allowed('/a', '1.1.1.1'), allowed('/a', '1.1.1.1'), allowed('/a', '1.1.1.1')]).toEqual([true, true, false]);
    expect([allowed('/b', '1.1.1.1'), allowed('/a', '2.2.2.2'), allowed(undefined, '1.1.1.1')]).toEqual([true, true, true]);
  });
});

describe('readsIp', () => {
  const limiter = () => new FixedWindowLimiter({ limit: 2, windowMs: 60_000 });
  it.each<[string, object, boolean]>([
    ['the default key', {}, true],
    ['a key that declares client', { key: (_req: Req, client?: string) => client ?? 'k' }, true],
    ['a key of the request alone', { key: (req: Req) => String(req.route) }, false],
    ['a key of nothing', { key: () => 'k' }, false],
    ['a key of the request with allowList', { key: () => 'k', allowList: ['10.0.0.0/8'] }, true],
    ['a key of the request with denyList', { key: () => 'k', denyList: ['10.0.0.1'] }, true],
  ])('%s: %s', (_what, options, reads) => {
    expect(prepareRateLimit<Req>('rateLimit', { limiter: limiter(), ...options }).readsIp).toBe(reads);
  });
});
