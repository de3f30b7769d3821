/**
 * prepareRateLimit: options are checked once, at creation (a typo'd name, a non-function hook or a
 * bad header style is a TypeError naming it); decide keys a request by its IP through ipKey, or by
 * `key(req)`; a request without a usable IP follows `missingIp` and never reaches the limiter (shown
 * with a counting limiter, for every string ipKey refuses, and against a shared-bucket mutant);
 * skip, cost and shadow do what they say; 10,000 addresses of one /56 share one limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Decision, FixedWindowLimiter, ManualClock, MissingIpError, TokenBucketLimiter, ipKey } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { sharedBucketPlan } from './mutants.js';
import { counting, recorder } from './support.js';

const OWNER = 'rateLimit';
type Req = { readonly id: string };
const req: Req = { id: 'r1' };
const prepare = (options: unknown, extra?: string[]) => prepareRateLimit<Req>(OWNER, options as never, extra);
const bucket = (capacity = 2) => counting(new TokenBucketLimiter({ capacity, refillPerSecond: 1, clock: new ManualClock(1_700_000_000_000) }));

describe('prepareRateLimit options', () => {
  it.each([
    [{ limt: 5 }, 'unknown option "limt": did you mean "limit"?'],
    [{ windowMS: 1000, algorithm: 'fixed-window' }, 'unknown option "windowMS": did you mean "windowMs"?'],
    [{ handler: () => undefined }, 'unknown option "handler"'],
  ])('refuses the unknown option in %o', (options, message) => {
    expect(() => prepare(options)).toThrowError(new TypeError(`rateLimit: ${message}`));
  });

  it.each([
    [{ max: 100 }, 'unknown option "max": ratekeeper calls it "limit"'],
    [{ keyGenerator: () => 'k' }, 'unknown option "keyGenerator": this adapter calls it "key"'],
    [{ message: 'Too many' }, 'unknown option "message": write a handler instead'],
    [{ statusCode: 503 }, 'unknown option "statusCode": write a handler that sets it'],
    [{ standardHeaders: 'draft-7' }, `unknown option "standardHeaders": ratekeeper calls it "headers": 'draft-10'`],
    [{ legacyHeaders: true }, `unknown option "legacyHeaders": ratekeeper folds it into "headers": headers: 'both'`],
    [{ skipSuccessfulRequests: true }, 'unknown option "skipSuccessfulRequests": ratekeeper counts by outcome with "countOutcome": countOutcome: (o) => o.status >= 400'],
    [{ timeWindow: '1 minute' }, 'unknown option "timeWindow": ratekeeper takes "windowMs"'],
    [{ errorResponseBuilder: () => ({}) }, 'unknown option "errorResponseBuilder": write a handler instead'],
    [{ points: 5 }, 'unknown option "points": ratekeeper calls it "limit"'],
    [{ duration: 60 }, 'unknown option "duration": this adapter takes "windowMs"'],
    [{ blockDuration: 60 }, 'unknown option "blockDuration": wrap the limiter in a BanLimiter'],
    [{ whitelist: [] }, 'unknown option "whitelist": this adapter\'s allowList takes IP addresses and CIDR ranges; koa-ratelimit\'s predicate is "skip"'],
  ])('refuses another library’s option %o saying what to write instead', (options, message) => {
    expect(() => prepare(options)).toThrow(TypeError);
    expect(() => prepare(options)).toThrow(`rateLimit: ${message}`);
  });

  it('takes { windowMs, limit } without algorithm as the first-request window, as express-rate-limit counts', () => {
    expect(prepare({ windowMs: 900_000, limit: 100 }).limiter.policies[0]).toMatchObject({ algorithm: 'first-request-window', limit: 100, windowMs: 900_000 });
  });

  it('accepts the adapter’s own option names given as extra, and only those', () => {
    expect(() => prepare({ handler: () => undefined }, ['handler'])).not.toThrow();
    expect(() => prepare({ handler: () => undefined, retries: 'x' }, ['handler'])).toThrowError(new TypeError('rateLimit: unknown option "retries"'));
  });

  it.each([
    [null, 'null'],
    [[], 'an array'],
    ['fast', '"fast"'],
    [60, '60'],
    [() => ({}), 'a function'],
  ])('refuses options %o', (options, shown) => {
    expect(() => prepare(options)).toThrowError(new TypeError(`rateLimit: options must be an object, got ${shown}`));
  });

  it.each(['key', 'cost', 'skip', 'onDecision'])('requires %s to be a function', (hook) => {
    for (const [value, shown] of [
      ['ip', '"ip"'],
      [true, 'true'],
      [{}, 'an object'],
      [null, 'null'],
    ] as const) {
      expect(() => prepare({ [hook]: value })).toThrowError(new TypeError(`rateLimit: ${hook} must be a function, got ${shown}`));
    }
  });

  it('checks headers, ipv6Subnet, missingIp and shadow', () => {
    for (const headers of ['draft-10', 'legacy', 'both', false]) expect(() => prepare({ headers })).not.toThrow();
    for (const [headers, shown] of [
      ['draft-7', '"draft-7"'],
      [null, 'null'],
    ] as const) {
      expect(() => prepare({ headers })).toThrowError(new TypeError(`rateLimit: headers must be 'draft-10', 'legacy', 'both' or false, got ${shown}`));
    }
    // express-rate-limit's headers: true and koa-ratelimit's header names get their translation (peer-values.ts).
    expect(() => prepare({ headers: true })).toThrowError(
      /^rateLimit: headers must be 'draft-10', 'legacy', 'both' or false, got true: express-rate-limit's headers: true is headers: 'legacy'/,
    );
    expect(() => prepare({ headers: { remaining: 'X-Left' } })).toThrowError(/got an object: koa-ratelimit's header names are not configurable/);
    expect(() => prepare({ ipv6Subnet: 70 })).toThrowError(new RangeError('rateLimit: ipv6Subnet must be an integer from 32 to 64, got 70'));
    expect(() => prepare({ ipv6Subnet: '56' })).toThrowError(new TypeError('rateLimit: ipv6Subnet must be an integer from 32 to 64, got "56"'));
    expect(() => prepare({ missingIp: 'allow' })).toThrowError(new TypeError(`rateLimit: missingIp must be 'reject' or 'skip', got "allow"`));
    expect(() => prepare({ shadow: 'yes' })).toThrowError(new TypeError('rateLimit: shadow must be a boolean, got "yes"'));
  });

  it('refuses null rather than reading it as the default', () => {
    expect(() => prepare({ ipv6Subnet: null })).toThrowError(new TypeError('rateLimit: ipv6Subnet must be an integer from 32 to 64, got null'));
    expect(() => prepare({ missingIp: null })).toThrowError(new TypeError(`rateLimit: missingIp must be 'reject' or 'skip', got null`));
    expect(() => prepare({ shadow: null })).toThrowError(new TypeError('rateLimit: shadow must be a boolean, got null'));
  });
});

describe('decide: the key', () => {
  it('counts a request under ipKey of its IP, grouping IPv6 by ipv6Subnet', () => {
    const { limiter, calls } = bucket();
    prepare({ limiter }).decide(req, '::ffff:1.2.3.4');
    prepare({ limiter, ipv6Subnet: 64 }).decide(req, '2001:db8:0:1:2::3');
    prepare({ limiter }).decide(req, '2001:db8:0:1:2::3');
    expect(calls).toEqual([
      ['1.2.3.4', 1],
      ['2001:db8:0:1::/64', 1],
      ['2001:db8:0:0::/56', 1],
    ]);
  });

  it('counts under key(req) when given, whatever the IP', () => {
    const { limiter, calls } = bucket();
    prepare({ limiter, key: (r: Req) => `user:${r.id}` }).decide(req, undefined);
    expect(calls).toEqual([['user:r1', 1]]);
  });

  it('refuses a key function that returns undefined, before counting', () => {
    const { limiter, calls } = bucket();
    expect(() => prepare({ limiter, key: () => undefined }).decide(req, '1.2.3.4')).toThrowError(new TypeError('rateLimit: key(req) must return a string, got undefined'));
    expect(calls).toEqual([]);
  });

  const junk = [undefined, '', 'unknown', 'undefined', '1.2.3', '256.1.1.1', '1.2.3.4, 5.6.7.8', '1.2.3.4:99999', '0.0.0.0', '::', 'x'.repeat(64 * 1024)];

  it.each(junk.map((ip) => [ip === undefined ? 'undefined' : JSON.stringify(ip.slice(0, 20)), ip]))('rejects a request whose IP is %s with MissingIpError, uncounted', (_, ip) => {
    const { limiter, calls } = bucket();
    const error = (() => {
      try {
        prepare({ limiter }).decide(req, ip);
      } catch (e) {
        return e;
      }
    })() as MissingIpError;
    expect(error).toBeInstanceOf(MissingIpError);
    expect([error.name, error.status, error.statusCode]).toEqual(['MissingIpError', 500, 500]);
    expect(error.message).toMatch(/^rateLimit: the request has no usable client IP; check the framework's trust-proxy setting/);
    expect(calls).toEqual([]);
  });

  it.each(junk.map((ip) => [ip === undefined ? 'undefined' : JSON.stringify(ip.slice(0, 20)), ip]))(
    "lets a request whose IP is %s through uncounted with missingIp 'skip'",
    (_, ip) => {
      const { limiter, calls } = bucket();
      expect(prepare({ limiter, missingIp: 'skip' }).decide(req, ip)).toBeUndefined();
      expect(calls).toEqual([]);
    },
  );

  /** noSharedBucket: a request with an IP ipKey refuses never reaches the limiter, under either policy. */
  const noSharedBucket = (wrap: (p: ReturnType<typeof prepare>) => ReturnType<typeof prepare>) =>
    fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom(...junk)), fc.constantFrom('reject', 'skip'), (ip, missingIp) => {
      if (ip !== undefined && ipKey(ip) !== undefined) return;
      const { limiter, calls } = bucket();
      try {
        expect(wrap(prepare({ limiter, missingIp })).decide(req, ip)).toBeUndefined();
        expect(missingIp).toBe('skip');
      } catch (e) {
        if (!(e instanceof MissingIpError) || missingIp !== 'reject') throw e;
      }
      expect(calls).toEqual([]);
    });

  it('never lets a request without a usable IP reach the limiter', () => {
    fc.assert(
      noSharedBucket((p) => p),
      { numRuns: 2000 },
    );
  });

  it('catches a plan that counts such requests in one shared bucket (mutant)', () => {
    expect(fc.check(noSharedBucket(sharedBucketPlan), { numRuns: 2000 }).failed).toBe(true);
  });

  it('admits exactly the limit over 10,000 addresses of one /56, and a neighbouring /56 has its own', () => {
    const plan = prepare({ limiter: new FixedWindowLimiter({ limit: 100, windowMs: 60_000, clock: new ManualClock(1_700_000_040_000) }) });
    let seed = 7;
    const hex = (max: number, width: number) => ((seed = (seed * 48_271) % 2_147_483_647) % max).toString(16).padStart(width, '0');
    const inside = (prefix: string) => `${prefix}${hex(0x100, 2)}:${hex(0x10000, 1)}:${hex(0x10000, 1)}:${hex(0x10000, 1)}:${hex(0x10000, 1)}`;
    const admitted = (prefix: string) => Array.from({ length: 10_000 }, () => plan.decide(req, inside(prefix))).filter((d) => (d as Decision).allowed).length;
    expect(admitted('2001:db8:7:1a')).toBe(100);
    expect(admitted('2001:db8:7:1a')).toBe(0);
    expect(admitted('2001:db8:7:1b')).toBe(100);
  });
});

describe('decide: skip, cost, shadow', () => {
  it('skips without counting, without asking key or cost, and counts when skip says false', () => {
    const { limiter, calls } = bucket();
    const asked: string[] = [];
    const hooks = { key: () => (asked.push('key'), 'k'), cost: () => (asked.push('cost'), 1) };
    expect(prepare({ limiter, ...hooks, skip: () => true }).decide(req, '1.2.3.4')).toBeUndefined();
    expect([calls, asked]).toEqual([[], []]);
    expect(prepare({ limiter, ...hooks, skip: () => false }).decide(req, '1.2.3.4')).toMatchObject({ allowed: true });
    expect([calls, asked]).toEqual([[['k', 1]], ['key', 'cost']]);
  });

  it('consumes cost(req) units', () => {
    const { limiter, calls } = bucket(5);
    expect(prepare({ limiter, cost: () => 3 }).decide(req, '1.2.3.4')).toMatchObject({ allowed: true, remaining: 2 });
    expect(calls).toEqual([['1.2.3.4', 3]]);
    expect(() => prepare({ limiter, cost: () => 0 }).decide(req, '1.2.3.4')).toThrowError(RangeError);
  });

  it('blocks denials unless in shadow mode, and never blocks an admission', () => {
    for (const shadow of [undefined, false, true]) {
      const plan = prepare({ limiter: bucket(1).limiter, ...(shadow === undefined ? {} : { shadow }) });
      const [allowed, denied] = [plan.decide(req, '1.2.3.4'), plan.decide(req, '1.2.3.4')] as Decision[] as [Decision, Decision];
      expect([allowed.allowed, denied.allowed]).toEqual([true, false]);
      expect([plan.blocks(allowed), plan.blocks(denied)]).toEqual([false, shadow !== true]);
    }
  });

  it('sends no Retry-After on a shadow-mode denial, which passes, and no header at all with headers: false', () => {
    for (const headers of ['draft-10', false] as const) {
      const plan = prepare({ limiter: bucket(1).limiter, shadow: true, headers });
      plan.decide(req, '1.2.3.4');
      const denied = recorder();
      plan.writeHeaders(denied.headers, denied.set, plan.decide(req, '1.2.3.4') as Decision);
      expect(denied.headers.map(([name]) => name)).toEqual(headers === false ? [] : ['RateLimit-Policy', 'RateLimit']);
    }
  });

  it('writes no header with headers: false except Retry-After on a denial', () => {
    const plan = prepare({ limiter: bucket(1).limiter, headers: false });
    const allowed = recorder();
    plan.writeHeaders(allowed.headers, allowed.set, plan.decide(req, '1.2.3.4') as Decision);
    const denied = recorder();
    plan.writeHeaders(denied.headers, denied.set, plan.decide(req, '1.2.3.4') as Decision);
    expect([allowed.headers, denied.headers]).toEqual([[], [['Retry-After', '1']]]);
  });

  it('writes draft-10 headers by default', () => {
    const plan = prepare({ limiter: bucket(1).limiter });
    const { headers, set } = recorder();
    plan.writeHeaders(headers, set, plan.decide(req, '1.2.3.4') as Decision);
    expect(headers).toEqual([
      ['RateLimit-Policy', '"tb-1-1";q=1;w=1'],
      ['RateLimit', '"tb-1-1";r=0;t=1'],
    ]);
  });
});
