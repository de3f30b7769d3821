/**
 * clientKey, the counterpart of express-rate-limit's `ipKeyGenerator`: ipKey's key for every client
 * address, typed string; an absent IP throws a MissingIpError, which a key function hands to the
 * adapter's missingIp policy (rejected by default, uncounted with 'skip'), never a shared bucket.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { FixedWindowLimiter, MissingIpError, clientKey, ipKey } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';

describe('clientKey', () => {
  it.each([
    ['1.2.3.4', 56, '1.2.3.4'],
    ['::ffff:1.2.3.4', 56, '1.2.3.4'],
    ['2001:db8:abcd:12ff::1', 56, '2001:db8:abcd:1200::/56'],
    ['2001:db8:abcd:12ff::1', 64, '2001:db8:abcd:12ff::/64'],
  ])('keys %s (/%i) as ipKey does: %s', (ip, subnet, want) => {
    expect(clientKey(ip, subnet)).toBe(want);
    expect(clientKey(ip, subnet)).toBe(ipKey(ip, subnet));
  });

  it.each([undefined, null, '', 'unknown', '0.0.0.0', '1.2.3.4, 5.6.7.8'])('throws a MissingIpError for %j, never a shared key', (ip) => {
    expect(() => clientKey(ip)).toThrowError(MissingIpError);
    expect(() => clientKey(ip)).toThrowError(/^clientKey: the request has no usable client IP/);
  });

  it('is typed string, so a key function built on it compiles', () => {
    expectTypeOf(clientKey).returns.toEqualTypeOf<string>();
    expectTypeOf(ipKey).returns.toEqualTypeOf<string | undefined>();
    const key: (req: { ip?: string }) => string = (req) => clientKey(req.ip);
    expect(key({ ip: '1.2.3.4' })).toBe('1.2.3.4');
  });

  it("hands an absent IP to the adapter's missingIp policy", () => {
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 1000 });
    const reject = prepareRateLimit<{ ip?: string }>('rateLimit', { limiter, key: (req) => clientKey(req.ip) });
    expect(() => reject.decide({}, undefined)).toThrowError(MissingIpError);
    const skip = prepareRateLimit<{ ip?: string }>('rateLimit', { limiter, key: (req) => clientKey(req.ip), missingIp: 'skip' });
    expect(skip.decide({}, undefined)).toBeUndefined();
    expect(skip.decide({ ip: '1.2.3.4' }, undefined)).toMatchObject({ allowed: true });
  });
});
