/**
 * Regression: ipKey keyed the unspecified address as a client: `0.0.0.0` as itself, `::` (and `::0`,
 * `0:0:0:0:0:0:0:0`, …) as `0:0:0:0::/56`, `::ffff:0.0.0.0` as `0.0.0.0`. No client has that address:
 * it is what a runtime or a proxy writes when it has none (a server's bind address copied into a
 * header, a default in user code: `getConnInfo(c).remote.address ?? '0.0.0.0'`), so on
 * @ratekeeper/fetch and Hono, where the address comes from the user, every such request shared one
 * bucket, and one client exhausted it for all. The unspecified address, in every spelling (recognised
 * by value after parsing, never by text), now has no key: the plan's missingIp policy applies (a
 * MissingIpError by default, uncounted with 'skip'), as for a missing address. The same property
 * catches an ipKey that refuses only the texts "0.0.0.0" and "::" (mutant).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpList, ManualClock, MissingIpError, TokenBucketLimiter, ipKey } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { counting } from '../http/support.js';
import { type KeyOf, unspecifiedByTextIpKey } from '../http/mutants.js';
import { type Groups, spell, spelling } from '../http/ipv6.js';

const SPELLINGS = [
  '0.0.0.0',
  '000.000.000.000',
  '0.0.0.0:443',
  '::',
  '::0',
  '0::',
  '0::0',
  '0:0:0:0:0:0:0:0',
  '0000:0000:0000:0000:0000:0000:0000:0000',
  '::%eth0',
  '[::]',
  '[::]:443',
  '::0.0.0.0',
  '::ffff:0.0.0.0',
  '::FFFF:0:0',
  '0:0:0:0:0:ffff:0.0.0.0',
  '[::ffff:0.0.0.0]:80',
  '64:ff9b::0.0.0.0',
];

const ZERO: Groups = [0, 0, 0, 0, 0, 0, 0, 0];
const MAPPED_ZERO: Groups = [0, 0, 0, 0, 0, 0xffff, 0, 0];

/** neverKeyed: no spelling of the unspecified address, bracketed or not, with a port or not, has a key. */
const neverKeyed = (keyOf: KeyOf) =>
  fc.property(fc.constantFrom(ZERO, MAPPED_ZERO), spelling, fc.integer({ min: 32, max: 64 }), fc.option(fc.nat(65535), { nil: undefined }), (groups, s, bits, port) => {
    const text = spell(groups, s);
    const written = port === undefined ? text : `[${text}]:${port}`;
    if (keyOf(written, bits) !== undefined) throw new Error(`${written} keys as ${keyOf(written, bits)}`);
  });

describe('the unspecified address', () => {
  it.each(SPELLINGS)('%j has no key at any prefix length', (ip) => {
    for (let bits = 32; bits <= 64; bits++) expect(ipKey(ip, bits), `/${bits}`).toBeUndefined();
  });

  it('has no key in any spelling, bracketed, with a port or a zone id', () => {
    fc.assert(neverKeyed(ipKey), { numRuns: 2000 });
  });

  it('catches an ipKey that refuses only the texts "0.0.0.0" and "::" (mutant)', () => {
    expect(fc.check(neverKeyed(unspecifiedByTextIpKey), { numRuns: 2000 }).failed).toBe(true);
  });

  it('is a missing IP to the plan: a MissingIpError by default, uncounted with missingIp skip, never one bucket', () => {
    const bucket = () => counting(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(1_700_000_000_000) }));
    const rejecting = bucket();
    const skipping = bucket();
    const reject = prepareRateLimit('rateLimit', { limiter: rejecting.limiter });
    const skip = prepareRateLimit('rateLimit', { limiter: skipping.limiter, missingIp: 'skip' });
    for (const ip of SPELLINGS) {
      expect(() => reject.decide({}, ip), ip).toThrowError(MissingIpError);
      expect(skip.decide({}, ip), ip).toBeUndefined();
    }
    expect([rejecting.calls, skipping.calls]).toEqual([[], []]);
  });

  it('stays an address for allow and deny lists, which name it on purpose', () => {
    expect(new IpList(['0.0.0.0/8']).has('::ffff:0.0.0.0')).toBe(true);
    expect(new IpList(['::/128']).has('0:0:0:0:0:0:0:0')).toBe(true);
  });
});
