/**
 * Regression: ipKey read an IPv4-compatible address (`::a.b.c.d`, ::/96, deprecated by RFC 4291
 * 2.5.5.1 but still written by old stacks and translators, and by anyone who controls a forwarded
 * header) as ordinary IPv6 and grouped it by /56: all 2^32 of them, whatever the IPv4 client, shared
 * the one bucket `0:0:0:0::/56`, so one client locked out every other. Decision: such an address is
 * the IPv4 address it embeds, as the IPv4-mapped form (::ffff:a.b.c.d) already is, so one client is
 * one key in whichever form it arrives and no form buys a second bucket. Keying it on its full 128 bits
 * would separate clients too, but give `::1.2.3.4` a bucket apart from `1.2.3.4`. The loopback ::1
 * (::0.0.0.1) stays IPv6's own; :: carries 0.0.0.0, the unspecified address, which has no key. The
 * model-based properties in test/http/ip-properties.test.ts cover every spelling at every prefix
 * length and catch the old grouping (mutant compatibleGroupedIpKey); these are the plain statements.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpList, ManualClock, TokenBucketLimiter, ipKey } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { counting } from '../http/support.js';
import { type KeyOf, compatibleGroupedIpKey } from '../http/mutants.js';
import { type Groups, spell, spelling } from '../http/ipv6.js';

// Every IPv4 address but 0.0.0.0 (unspecified) and 0.0.0.1 (::1 once embedded).
const embedded = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).filter(([a, b, c, d]) => a + b + c > 0 || d > 1);
const compatible = ([a, b, c, d]: readonly number[]): Groups => [0, 0, 0, 0, 0, 0, ((a as number) << 8) | (b as number), ((c as number) << 8) | (d as number)];

/** asItsIpv4: every spelling of ::a.b.c.d keys as a.b.c.d, at every prefix length. */
const asItsIpv4 = (keyOf: KeyOf) =>
  fc.property(embedded, spelling, fc.integer({ min: 32, max: 64 }), (octets, s, bits) => {
    const text = spell(compatible(octets), s);
    if (keyOf(text, bits) !== octets.join('.')) throw new Error(`${text} /${bits} keys as ${keyOf(text, bits)}`);
  });

describe('IPv4-compatible addresses', () => {
  it.each([
    ['::1.2.3.4', '1.2.3.4'],
    ['::102:304', '1.2.3.4'],
    ['0:0:0:0:0:0:1.2.3.4', '1.2.3.4'],
    ['0000:0000:0000:0000:0000:0000:0102:0304', '1.2.3.4'],
    ['::203.0.113.9%eth0', '203.0.113.9'],
    ['[::1.2.3.4]:443', '1.2.3.4'],
    ['::0.0.0.2', '0.0.0.2'],
    ['::1', '0:0:0:0::/56'],
    ['::0.0.0.1', '0:0:0:0::/56'],
  ])('keys %j as %j', (ip, key) => {
    expect(ipKey(ip)).toBe(key);
  });

  it('key every spelling as the IPv4 address they embed, at every prefix length', () => {
    fc.assert(asItsIpv4(ipKey), { numRuns: 5000 });
  });

  it('catches the old grouping of ::/96 into one /56 (mutant)', () => {
    expect(fc.check(asItsIpv4(compatibleGroupedIpKey), { numRuns: 5000 }).failed).toBe(true);
  });

  it('give 10,000 distinct clients 10,000 keys, where they had one', () => {
    const keys = new Set(fc.sample(embedded, { numRuns: 10_000, seed: 42 }).map((o) => ipKey(`::${o.join('.')}`)));
    const clients = new Set(fc.sample(embedded, { numRuns: 10_000, seed: 42 }).map((o) => o.join('.')));
    expect(keys).toEqual(clients);
  });

  it('share one bucket with the same client written as IPv4 or IPv4-mapped, and another client has its own', () => {
    const { limiter, calls } = counting(new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock: new ManualClock(1_700_000_000_000) }));
    const plan = prepareRateLimit('rateLimit', { limiter });
    const allowed = ['::1.2.3.4', '1.2.3.4', '::ffff:1.2.3.4', '::102:304', '::1.2.3.5'].map((ip) => (plan.decide({}, ip) as { allowed: boolean }).allowed);
    expect(allowed).toEqual([true, true, true, false, true]);
    expect(new Set(calls.map(([k]) => k))).toEqual(new Set(['1.2.3.4', '1.2.3.5']));
  });

  it('are on an allow or deny list exactly when the IPv4 address they embed is', () => {
    const list = new IpList(['203.0.113.0/24']);
    expect(['::203.0.113.9', '::cb00:7109', '::203.0.114.9'].map((ip) => list.has(ip))).toEqual([true, true, false]);
  });
});
