/**
 * ipKey's properties (reliability plan, scenarios 40 to 42), each checked against a model that shares
 * no code with ip.ts: test/http/ipv6.ts spells addresses and models the /bits prefix with BigInt, and
 * Node's net.isIP (with the WHATWG URL parser for the unspecified address) decides what is an address
 * at all. Every spelling of an address gives one key; two addresses share a key exactly when their
 * masked prefixes are equal (or, IPv4-mapped or IPv4-compatible, when their IPv4 addresses are); the
 * unspecified address has none; IPv4 is never masked; and the same property catches five realistic
 * broken ipKeys.
 */
import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipKey } from '../../src/index.js';
import { type Groups, address, carriesV4, isUnspecified, modelKey, neighbour, quad, renderings, spell, spelling, zone } from './ipv6.js';
import { type KeyOf, compatibleGroupedIpKey, longMaskIpKey, prefixMappedIpKey, textPrefixIpKey, zoneKeptIpKey } from './mutants.js';

const addressPair = address.chain((a) => fc.tuple(fc.constant(a), neighbour(a)));

/** canonicalisation: one key per address whatever the spelling, and keys as distinct as the model's. */
function canonicalisation(keyOf: KeyOf, bits: fc.Arbitrary<number>) {
  return fc.property(addressPair, spelling, spelling, zone, bits, ([a, b], sa, sb, zoneId, n) => {
    const ka = keyOf(spell(a, sa), n);
    for (const [name, text] of Object.entries(renderings(a, zoneId))) {
      if (keyOf(text, n) !== ka) throw new Error(`${name} ${JSON.stringify(text)} keys as ${keyOf(text, n)}, another spelling as ${ka}`);
    }
    const want = isUnspecified(a) ? ka === undefined : carriesV4(a) ? ka === quad(a) : ka?.endsWith(`::/${n}`) === true;
    if (!want) throw new Error(`${spell(a, sa)} keys as ${ka}`);
    const kb = keyOf(spell(b, sb), n);
    if ((ka === kb) !== (modelKey(a, n) === modelKey(b, n))) {
      throw new Error(`/${n}: ${spell(a, sa)} → ${ka} and ${spell(b, sb)} → ${kb}, but the model says ${modelKey(a, n)} and ${modelKey(b, n)}`);
    }
  });
}

/**
 * isClientAddress is the model of what has a key: an address by net.isIP, after RFC 3986's port syntax
 * (`a.b.c.d:port`, `[v6]:port`, `[v6]`, a port 0 to 65535), that is not the unspecified address (in
 * the WHATWG URL parser's form: 0.0.0.0, or an IPv6 one carrying it).
 */
function isClientAddress(text: string): boolean {
  const bracketed = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(text);
  const quadPort = /^([^:]*):(\d{1,5})$/.exec(text);
  const [host, port, family] = bracketed !== null ? [bracketed[1] as string, bracketed[2], 6] : quadPort !== null ? [quadPort[1] as string, quadPort[2], 4] : [text, undefined, 0];
  if (port !== undefined && Number(port) > 65535) return false;
  // ipKey drops any zone id, where Node checks its characters.
  const found = isIP(host.replace(/%.*$/s, '%z'));
  if (found === 0 || (family !== 0 && found !== family)) return false;
  if (found === 4) return host !== '0.0.0.0';
  return !['[::]', '[::ffff:0:0]', '[64:ff9b::]'].includes(new URL(`http://[${host.replace(/%.*$/s, '')}]/`).hostname);
}

const slash56 = fc.constant(56);
/** About 2 s on an idle machine; the shared 2-core machine can be five times slower. */
const SLOW = 60_000;
const anySubnet = fc.integer({ min: 32, max: 64 });
// 0.0.0.0, the unspecified address, has no key (regressions/unspecified-address-is-a-client.test.ts).
const octets = fc
  .tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
  .filter((o) => o.some((n) => n !== 0))
  .map((o) => o.join('.'));

describe('ipKey properties', () => {
  it(
    'gives every rendering of an address one key, distinct exactly when the /56 prefixes differ',
    () => {
      fc.assert(canonicalisation(ipKey, slash56), { numRuns: 10_000 });
    },
    SLOW,
  );

  it('keeps that property at every prefix length from 32 to 64', () => {
    fc.assert(canonicalisation(ipKey, anySubnet), { numRuns: 2_000 });
  });

  it('never masks an IPv4 address, bare, mapped or compatible, at any prefix length', () => {
    fc.assert(
      fc.property(octets, anySubnet, spelling, (ip, bits, s) => {
        const [a, b, c, d] = ip.split('.').map(Number) as [number, number, number, number];
        const mapped: Groups = [0, 0, 0, 0, 0, 0xffff, (a << 8) | b, (c << 8) | d];
        const compatible: Groups = [0, 0, 0, 0, 0, 0, (a << 8) | b, (c << 8) | d];
        expect(ipKey(ip, bits)).toBe(ip);
        expect(ipKey(spell(mapped, s), bits)).toBe(ip);
        // ::0.0.0.1 is the loopback ::1, IPv6's own.
        if (ip !== '0.0.0.1') expect(ipKey(spell(compatible, s), bits)).toBe(ip);
      }),
      { numRuns: 2_000 },
    );
  });

  it(
    'gives 10,000 random addresses in one /56 exactly one key',
    () => {
      const prefix = fc.tuple(fc.integer({ min: 1, max: 0xffff }), fc.nat(0xffff), fc.nat(0xffff), fc.nat(0xff));
      const suffix = fc.tuple(fc.nat(0xff), fc.array(fc.nat(0xffff), { minLength: 4, maxLength: 4 }), spelling);
      fc.assert(
        fc.property(prefix, fc.integer(), ([g0, g1, g2, high], seed) => {
          const keys = new Set<string | undefined>();
          for (const [low, rest, s] of fc.sample(suffix, { numRuns: 10_000, seed })) keys.add(ipKey(spell([g0, g1, g2, (high << 8) | low, ...rest], s)));
          expect([...keys]).toEqual([`${g0.toString(16)}:${g1.toString(16)}:${g2.toString(16)}:${(high << 8).toString(16)}::/56`]);
        }),
        { numRuns: 2 },
      );
    },
    SLOW,
  );

  it(
    'has a key exactly for what net.isIP calls an address, with or without a port, unspecified aside (zero-led octets aside)',
    () => {
      const token = fc.constantFrom(...'0123456789abcdefABCDEF:.', '::', '1.2.3.4', 'ffff', ':0', '%eth0', ' ', ',', '[', ']', '١', '\n');
      fc.assert(
        fc.property(
          fc.array(token, { maxLength: 24 }).map((t) => t.join('')),
          (text) => {
            // ipKey reads 010 as 10, where Node refuses it.
            if (/(?:^|[^0-9a-f])0\d+\.|\.0\d/i.test(text)) return;
            expect(ipKey(text) !== undefined, JSON.stringify(text)).toBe(isClientAddress(text));
          },
        ),
        { numRuns: 10_000 },
      );
    },
    SLOW,
  );

  it.each([
    ['recognises IPv4-mapped addresses by the ::ffff: text prefix only', prefixMappedIpKey],
    ['cuts the key from the text of the first groups', textPrefixIpKey],
    ['keeps the zone id in the key', zoneKeptIpKey],
    ['masks one bit too many', longMaskIpKey],
    ['groups IPv4-compatible addresses by prefix like other IPv6', compatibleGroupedIpKey],
  ])('catches an ipKey that %s (mutant)', (_, mutant) => {
    expect(fc.check(canonicalisation(mutant, slash56), { numRuns: 10_000 }).failed).toBe(true);
  });
});
