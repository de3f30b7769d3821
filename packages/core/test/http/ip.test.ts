/**
 * ipKey by table: every spelling of one IPv4-mapped address is that IPv4 address (recognised by value,
 * CVE-2026-30827's lesson), IPv6 keys are the masked prefix in one canonical form at each prefix
 * length, an address with a port is the address, and anything that is not exactly one client's IP
 * address (missing, junk, a forwarded list, a malformed port, the unspecified address, a 64 KiB
 * header) has no key at all, so that the caller's missing-IP policy applies instead of a shared
 * bucket. checkIpv6Subnet takes integers 32 to 64 and names the bad value.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_IPV6_SUBNET, checkIpv6Subnet, ipKey } from '../../src/index.js';

describe('ipKey', () => {
  it.each([
    ['1.2.3.4', 'canonical IPv4'],
    ['::ffff:1.2.3.4', 'mapped, dotted quad'],
    ['::ffff:102:304', 'mapped, hex'],
    ['::FFFF:1.2.3.4', 'upper case, dotted quad'],
    ['::FFFF:102:304', 'upper case, hex'],
    ['::ffff:0102:0304', 'zero-padded hex'],
    ['0:0:0:0:0:ffff:0102:0304', 'fully expanded'],
    ['0000:0000:0000:0000:0000:FFFF:0102:0304', 'fully expanded, padded, upper case'],
    ['0:0:0:0:0:ffff:1.2.3.4', 'expanded with a dotted quad'],
    ['::0:ffff:102:304', 'compressed elsewhere'],
    ['0::ffff:102:304', 'compressed in the middle'],
    ['::ffff:1.2.3.4%eth0', 'dotted quad with a zone id'],
    ['::ffff:102:304%25', 'hex with a numeric zone id'],
  ])('keys %j (%s) as 1.2.3.4', (ip) => {
    expect(ipKey(ip)).toBe('1.2.3.4');
  });

  it('keys a mapped address as its IPv4 address at every prefix length', () => {
    for (let bits = 32; bits <= 64; bits++) expect(ipKey('0:0:0:0:0:ffff:0102:0304', bits), `/${bits}`).toBe('1.2.3.4');
  });

  it.each([
    ['2001:db8:abcd:12ff:1::1', 56, '2001:db8:abcd:1200::/56'],
    ['2001:DB8:ABCD:12FF::', 56, '2001:db8:abcd:1200::/56'],
    ['2001:0db8:abcd:1234:5678:9abc:def0:1234', 56, '2001:db8:abcd:1200::/56'],
    ['2001:db8:abcd:12ff:1::1%eth0', 56, '2001:db8:abcd:1200::/56'],
    ['2001:db8:abcd:12ff:1::1', 64, '2001:db8:abcd:12ff::/64'],
    ['2001:db8:abcd:12ff:1::1', 63, '2001:db8:abcd:12fe::/63'],
    ['2001:db8:abcd:12ff:1::1', 48, '2001:db8:abcd::/48'],
    ['2001:db8:abcd:12ff:1::1', 33, '2001:db8:8000::/33'],
    ['2001:db8:abcd:12ff:1::1', 32, '2001:db8::/32'],
    ['::1', 56, '0:0:0:0::/56'],
    ['::1:0:0:0', 56, '0:0:0:0::/56'],
    ['fe80::1%eth0', 56, 'fe80:0:0:0::/56'],
    ['1:2:3:4:5:6:7::', 56, '1:2:3:0::/56'],
    ['::2:3:4:5:6:7:8', 64, '0:2:3:4::/64'],
    ['64:ff9b::1.2.3.4', 56, '1.2.3.4'],
    ['64:FF9B:0:0:0:0:0102:0304', 56, '1.2.3.4'],
    ['64:ff9b:1::1.2.3.4', 56, '64:ff9b:1:0::/56'],
    ['::1.2.3.4', 56, '1.2.3.4'],
    ['::102:304', 64, '1.2.3.4'],
    ['::0.0.0.2', 56, '0.0.0.2'],
    ['1.2.3.4:8080', 56, '1.2.3.4'],
    ['1.2.3.4:0', 56, '1.2.3.4'],
    ['001.002.003.004:65535', 56, '1.2.3.4'],
    ['[2001:db8:abcd:12ff::1]:443', 56, '2001:db8:abcd:1200::/56'],
    ['[2001:db8:abcd:12ff::1]', 64, '2001:db8:abcd:12ff::/64'],
    ['[::1]:443', 56, '0:0:0:0::/56'],
    ['[::ffff:1.2.3.4]:443', 56, '1.2.3.4'],
    ['[fe80::1%eth0]:8080', 56, 'fe80:0:0:0::/56'],
  ])('keys %j at /%i as %j', (ip, bits, key) => {
    expect(ipKey(ip, bits)).toBe(key);
  });

  it('groups IPv6 by /56 unless told otherwise', () => {
    expect(DEFAULT_IPV6_SUBNET).toBe(56);
    expect(ipKey('2001:db8:abcd:12ff:1::1')).toBe(ipKey('2001:db8:abcd:12ff:1::1', 56));
    expect(ipKey('2001:db8:abcd:1200::')).toBe(ipKey('2001:db8:abcd:12ff:ffff:ffff:ffff:ffff'));
    expect(ipKey('2001:db8:abcd:1100::')).not.toBe(ipKey('2001:db8:abcd:1200::'));
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['the empty string', ''],
    ['"unknown"', 'unknown'],
    ['"undefined"', 'undefined'],
    ['three octets', '1.2.3'],
    ['an octet above 255', '256.1.1.1'],
    ['five octets', '1.2.3.4.5'],
    ['a forwarded list', '1.2.3.4, 5.6.7.8'],
    ['a forwarded list without spaces', '1.2.3.4,5.6.7.8'],
    ['an IPv6 forwarded list', '2001:db8::1, 2001:db8::2'],
    ['the unspecified IPv4 address', '0.0.0.0'],
    ['the unspecified IPv6 address', '::'],
    ['the unspecified address with a port', '0.0.0.0:443'],
    ['a port above 65535', '1.2.3.4:65536'],
    ['a six-digit port', '1.2.3.4:000443'],
    ['an empty port', '1.2.3.4:'],
    ['a hex port', '1.2.3.4:0x1bb'],
    ['a signed port', '1.2.3.4:+443'],
    ['two ports', '1.2.3.4:443:443'],
    ['an IPv6 address with a port outside brackets', '::ffff:1.2.3.4:443'],
    ['a bracketed IPv4 address', '[1.2.3.4]:443'],
    ['empty brackets', '[]:443'],
    ['an unclosed bracket', '[::1'],
    ['a bracketed address with an empty port', '[::1]:'],
    ['a bracketed address followed by junk', '[::1]x'],
    ['a hostname with a port', 'localhost:443'],
    ['an IPv4 address with a zone id', '1.2.3.4%eth0'],
    ['surrounding space', ' ::1 '],
    ['a hostname', 'localhost'],
    ['hex IPv4', '0x7f.0.0.1'],
    ['a sign', '+1.2.3.4'],
    ['two "::"', '1::2::3'],
    ['":::"', ':::1'],
    ['a five-digit group', '12345::'],
    ['a non-hex group', 'g::1'],
    ['nine groups', '1:2:3:4:5:6:7:8:9'],
    ['seven groups without "::"', '1:2:3:4:5:6:7'],
    ['"::" standing for no group', '1:2:3:4:5:6:7:8::'],
    ['a leading single colon', ':1:2:3:4:5:6:7'],
    ['a trailing single colon', '1:2:3:4:5:6:7:'],
    ['a mapped address with a bad octet', '::ffff:1.2.3.256'],
    ['a dotted quad before "::"', '1.2.3.4::'],
    ['a dotted quad before "::" and a group', '1.2.3.4::1'],
    ['a dotted quad in the middle', '1:2:3:4:5:1.2.3.4:6'],
    ['a dotted quad and eight groups', '1:2:3:4:5:6:7:1.2.3.4'],
    ['a 64 KiB string', '1'.repeat(64 * 1024)],
    ['a 64 KiB forwarded list', '1.2.3.4, '.repeat(7282).slice(0, 64 * 1024)],
  ])('has no key for %s', (_, ip) => {
    expect(ipKey(ip)).toBeUndefined();
  });
});

describe('checkIpv6Subnet', () => {
  it.each([32, 33, 48, 56, 63, 64])('accepts %i', (bits) => {
    expect(checkIpv6Subnet('rateLimit', bits)).toBe(bits);
  });

  it.each([
    [31, '31'],
    [65, '65'],
    [0, '0'],
    [-0, '0'],
    [-56, '-56'],
    [56.5, '56.5'],
    [128, '128'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
  ])('refuses %d with a RangeError', (bits, shown) => {
    expect(() => checkIpv6Subnet('rateLimit', bits)).toThrowError(new RangeError(`rateLimit: ipv6Subnet must be an integer from 32 to 64, got ${shown}`));
  });

  it.each([
    ['56', '"56"'],
    [undefined, 'undefined'],
    [null, 'null'],
    [true, 'true'],
    [56n, '56'],
    [{}, 'an object'],
    [[56], 'an array'],
  ])('refuses %o with a TypeError', (bits, shown) => {
    expect(() => checkIpv6Subnet('rateLimit', bits)).toThrowError(new TypeError(`rateLimit: ipv6Subnet must be an integer from 32 to 64, got ${shown}`));
  });
});
