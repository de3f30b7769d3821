/**
 * Regression: ipKey parsed every address with split/map/join and a regex per part, so the two forms a
 * framework hands over on almost every request cost microseconds: "1.2.3.4", and "::ffff:1.2.3.4"
 * from a dual-stack socket (about 1.6 µs and 6 µs per call on the shared 2-core machine, against
 * 0.06 µs and 0.4 µs with a fast path). That alone broke the adapters' +2 µs per-request budget.
 * ipKey now returns canonical dotted quads (bare or behind a lower-case ::ffff:) as they are; these
 * properties pin the fast path to the general parser's answers, which other spellings still reach.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipKey } from '../../src/index.js';

// 0.0.0.0, the unspecified address, has no key (unspecified-address-is-a-client.test.ts).
const quad = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).filter((o) => o.some((n) => n !== 0));
const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);

describe('ipKey on the common IPv4 forms', () => {
  it('keys a canonical dotted quad exactly as the general parser keys its other spellings', () => {
    fc.assert(
      fc.property(quad, ([a, b, c, d]) => {
        const canonical = `${a}.${b}.${c}.${d}`;
        const key = ipKey(canonical);
        expect(key).toBe(canonical);
        expect(ipKey(`::FFFF:${canonical}`)).toBe(key);
        expect(ipKey(`0:0:0:0:0:ffff:${hex(a, b)}:${hex(c, d)}`)).toBe(key);
      }),
      { numRuns: 2000 },
    );
  });

  it('keys a lower-case ::ffff: mapped quad as its IPv4 address, like the hex spelling', () => {
    fc.assert(
      fc.property(quad, ([a, b, c, d]) => {
        const mapped = ipKey(`::ffff:${a}.${b}.${c}.${d}`);
        expect(mapped).toBe(`${a}.${b}.${c}.${d}`);
        expect(ipKey(`::ffff:${hex(a, b)}:${hex(c, d)}`)).toBe(mapped);
      }),
      { numRuns: 2000 },
    );
  });

  it.each(['256.1.1.1', '1.2.3', '1.2.3.4.', '1..2.3', '::ffff:1.2.3.256', '::ffff:', ' 1.2.3.4', '1.2.3.4\n', '١.٢.٣.٤'])('still refuses %j', (text) => {
    expect(ipKey(text)).toBeUndefined();
  });

  it('canonicalises leading zeros through the general parser', () => {
    expect(ipKey('010.001.000.009')).toBe('10.1.0.9');
    expect(ipKey('::ffff:010.1.1.1')).toBe('10.1.1.1');
  });
});
