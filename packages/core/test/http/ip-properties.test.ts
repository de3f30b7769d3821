/**
 * ipKey's properties (reliability plan, scenarios 40 to 42), each checked against a model that shares
 * no code with ip.ts: test/http/ipv6.ts spells addresses and models the /bits prefix with BigInt, and
 * Node's net.isIP decides what is an address at all. Every spelling of an address gives one key; two
 * addresses share a key exactly when their masked prefixes are equal (or, IPv4-mapped, when their IPv4
 * addresses are); IPv4 is never masked; and the same property catches four realistic broken ipKeys.
 */
import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipKey } from '../../src/index.js';
import { type Groups, address, isMapped, modelKey, neighbour, quad, renderings, spell, spelling, zone } from './ipv6.js';
import { type KeyOf, longMaskIpKey, prefixMappedIpKey, textPrefixIpKey, zoneKeptIpKey } from './mutants.js';

const addressPair = address.chain((a) => fc.tuple(fc.constant(a), neighbour(a)));

/** canonicalisation: one key per address whatever the spelling, and keys as distinct as the model's. */
function canonicalisation(keyOf: KeyOf, bits: fc.Arbitrary<number>) {
  return fc.property(addressPair, spelling, spelling, zone, bits, ([a, b], sa, sb, zoneId, n) => {
    const ka = keyOf(spell(a, sa), n);
    for (const [name, text] of Object.entries(renderings(a, zoneId))) {
      if (keyOf(text, n) !== ka) throw new Error(`${name} ${JSON.stringify(text)} keys as ${keyOf(text, n)}, another spelling as ${ka}`);
    }
    if (isMapped(a) ? ka !== quad(a) : !ka?.endsWith(`::/${n}`)) throw new Error(`${spell(a, sa)} keys as ${ka}`);
    const kb = keyOf(spell(b, sb), n);
    if ((ka === kb) !== (modelKey(a, n) === modelKey(b, n))) {
      throw new Error(`/${n}: ${spell(a, sa)} → ${ka} and ${spell(b, sb)} → ${kb}, but the model says ${modelKey(a, n)} and ${modelKey(b, n)}`);
    }
  });
}

const slash56 = fc.constant(56);
/** About 2 s on an idle machine; the shared 2-core machine can be five times slower. */
const SLOW = 60_000;
const anySubnet = fc.integer({ min: 32, max: 64 });
const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));

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

  it('never masks an IPv4 address, bare or mapped, at any prefix length', () => {
    fc.assert(
      fc.property(octets, anySubnet, spelling, (ip, bits, s) => {
        const [a, b, c, d] = ip.split('.').map(Number) as [number, number, number, number];
        const mapped: Groups = [0, 0, 0, 0, 0, 0xffff, (a << 8) | b, (c << 8) | d];
        expect(ipKey(ip, bits)).toBe(ip);
        expect(ipKey(spell(mapped, s), bits)).toBe(ip);
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
    'has a key exactly for what net.isIP calls an address (zone ids and zero-led octets aside)',
    () => {
      const token = fc.constantFrom(...'0123456789abcdefABCDEF:.', '::', '1.2.3.4', 'ffff', ':0', '%eth0', ' ', ',', '[', ']', '١', '\n');
      fc.assert(
        fc.property(
          fc.array(token, { maxLength: 24 }).map((t) => t.join('')),
          (text) => {
            // ipKey drops any zone id, where Node checks its characters; it reads 010 as 10, where Node refuses it.
            const forNode = text.replace(/%.*$/s, '%z');
            if (/(?:^|[^0-9a-f])0\d+\.|\.0\d/i.test(text)) return;
            expect(ipKey(text) !== undefined, JSON.stringify(text)).toBe(isIP(forNode) !== 0);
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
  ])('catches an ipKey that %s (mutant)', (_, mutant) => {
    expect(fc.check(canonicalisation(mutant, slash56), { numRuns: 10_000 }).failed).toBe(true);
  });
});
