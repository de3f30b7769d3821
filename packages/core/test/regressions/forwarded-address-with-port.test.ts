/**
 * Regression: behind a proxy that writes the client's port into X-Forwarded-For (`1.2.3.4:443`,
 * `[2001:db8::1]:443`, as Azure's gateways and some IIS/ARR setups do), every request was a 500.
 * Express (4 and 5), Koa (2 and 3) and Fastify hand the entry over verbatim as the client IP (checked
 * over real HTTP: `req.ip` is `"1.2.3.4:443"`), ipKey found no address in it, and the plan raised a
 * MissingIpError. The address without its port is what the proxy meant: ipKey now reads `a.b.c.d:port`,
 * `[v6]:port` and `[v6]` as the address (so one client is one bucket whatever port it came from), and
 * allow/deny lists read it the same way (a port must not slip past a deny list). A malformed value (a
 * port above 65535, an empty or non-decimal one, an IPv6 address with a port outside brackets) is still
 * no address: the missingIp policy applies, never a shared bucket. The same property catches a port
 * stripped as "whatever digits follow the last colon", which eats an IPv6 address's last group (mutant).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpList, ManualClock, MissingIpError, TokenBucketLimiter, ipKey } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { counting } from '../http/support.js';
import { type KeyOf, lastColonPortIpKey } from '../http/mutants.js';
import { address, compressed, modelKey, spell, spelling } from '../http/ipv6.js';

const port = fc.nat(65535);
const octets = fc.tuple(fc.integer({ min: 1, max: 255 }), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));

/** portBlind: an address keys the same with a port or brackets as without, and bare IPv6 keeps every group. */
const portBlind = (keyOf: KeyOf) =>
  fc.property(address, spelling, octets, port, (a, s, quad, p) => {
    const text = spell(a, s);
    const bare = keyOf(text);
    if ((bare === undefined) !== (modelKey(a, 56) === 'none')) throw new Error(`${text} keys as ${bare}`);
    for (const written of [`[${text}]:${p}`, `[${text}]`]) if (keyOf(written) !== bare) throw new Error(`${written} keys as ${keyOf(written)}, ${text} as ${bare}`);
    if (keyOf(`${quad}:${p}`) !== quad) throw new Error(`${quad}:${p} keys as ${keyOf(`${quad}:${p}`)}`);
  });

describe('an address with a port', () => {
  it.each([
    ['1.2.3.4:443', '1.2.3.4'],
    ['1.2.3.4:0', '1.2.3.4'],
    ['1.2.3.4:65535', '1.2.3.4'],
    ['[2001:db8::1]:443', '2001:db8:0:0::/56'],
    ['[2001:db8::1]', '2001:db8:0:0::/56'],
    ['[::ffff:1.2.3.4]:8080', '1.2.3.4'],
    ['[fe80::1%eth0]:443', 'fe80:0:0:0::/56'],
  ])('keys %j as %j', (ip, key) => {
    expect(ipKey(ip)).toBe(key);
  });

  it.each(['1.2.3.4:65536', '1.2.3.4:', '1.2.3.4:https', '1.2.3.4:-1', '::ffff:1.2.3.4:443', '[1.2.3.4]:443', '[2001:db8::1]:', '[2001:db8::1]443', '[2001:db8::1'])(
    'has no key for the malformed %j',
    (ip) => {
      expect(ipKey(ip)).toBeUndefined();
    },
  );

  it('keys the same as the address alone, every spelling, every port', () => {
    fc.assert(portBlind(ipKey), { numRuns: 3000 });
  });

  it('catches a port stripped as the digits after the last colon (mutant)', () => {
    expect(fc.check(portBlind(lastColonPortIpKey), { numRuns: 3000 }).failed).toBe(true);
  });

  it('is counted by the plan under the address, one bucket whatever the port, where it was a MissingIpError', () => {
    const { limiter, calls } = counting(new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, clock: new ManualClock(1_700_000_000_000) }));
    const plan = prepareRateLimit('rateLimit', { limiter });
    const allowed = ['1.2.3.4:443', '1.2.3.4', '1.2.3.4:8080'].map((ip) => (plan.decide({}, ip) as { allowed: boolean }).allowed);
    expect(allowed).toEqual([true, true, false]);
    expect(calls.map(([k]) => k)).toEqual(['1.2.3.4', '1.2.3.4', '1.2.3.4']);
    expect(() => plan.decide({}, '1.2.3.4:65536')).toThrowError(MissingIpError);
  });

  it('is on an allow or deny list exactly when its address is', () => {
    const list = new IpList(['203.0.113.0/24', '2001:db8::/32']);
    fc.assert(
      fc.property(octets, address, port, (quad, a, p) => {
        expect(list.has(`${quad}:${p}`)).toBe(list.has(quad));
        expect(list.has(`[${compressed(a)}]:${p}`)).toBe(list.has(compressed(a)));
      }),
      { numRuns: 2000 },
    );
    expect(['203.0.113.9:443', '[2001:db8::1]:443', '203.0.114.9:443'].map((ip) => list.has(ip))).toEqual([true, true, false]);
  });
});
