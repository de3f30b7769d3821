/**
 * Key layout: plain keys are stored byte-exact inside one hash tag; keys that would break the tag, the
 * bytes or the memory bound are stored as '#' + SHA-256; all keys of one request land in one cluster
 * slot; distinct user keys never share a Redis key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slotOf } from '../test/support/slot.js';
import { MAX_RAW_KEY_LENGTH, encodeKey, storageKey } from './keys.js';

const hashed = (key: string) => /^#[0-9a-f]{64}$/.test(encodeKey(key));

describe('encodeKey', () => {
  it.each([
    ['203.0.113.7', false],
    ['2001:db8::/56', false],
    ['user:42', false],
    ['émoji 😀', false],
    ['x'.repeat(MAX_RAW_KEY_LENGTH), false],
    ['', true],
    ['x'.repeat(MAX_RAW_KEY_LENGTH + 1), true],
    ['a{b', true],
    ['}', true],
    ['#not-a-hash', true],
    ['lone \uD800 surrogate', true],
    ['\uDC00 reversed', true],
  ])('encodes %j as a hash: %s', (key, isHash) => {
    expect(hashed(key)).toBe(isHash);
    if (!isHash) expect(encodeKey(key)).toBe(key);
  });

  it('keeps distinct keys distinct, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        fc.pre(a !== b);
        expect(encodeKey(a)).not.toBe(encodeKey(b));
      }),
    );
    expect(encodeKey('\uD800')).not.toBe(encodeKey('\uDBFF'));
  });
});

describe('storageKey', () => {
  it('lays a key out as prefix, policy name, then the encoded key as hash tag', () => {
    expect(storageKey('rk:', 'tb-10-1', '203.0.113.7')).toBe('rk:tb-10-1:{203.0.113.7}');
  });

  it('puts every policy of one request in one cluster slot, whatever the key', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,64}$/);
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: fc.constantFrom('{', '}', 'a', '') })),
        fc.array(name, { minLength: 2, maxLength: 4 }),
        (key, names) => {
          const slots = new Set(names.map((n) => slotOf(storageKey('rk:', n, key))));
          expect(slots.size).toBe(1);
        },
      ),
      { numRuns: 500 },
    );
  });
});
