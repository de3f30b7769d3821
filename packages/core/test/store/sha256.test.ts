/**
 * The row-store kit's SHA-256 (src/store/rows/sha256.ts) against the standard's test vectors (FIPS
 * 180-4's examples: the empty message, "abc", the two-block 448-bit message, a million "a"s) and
 * against node:crypto at every length around the padding's block boundaries, where a slip in the
 * length field or the extra block would show.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/store/rows/sha256.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const ascii = (text: string) => new TextEncoder().encode(text);

const VECTORS: Array<[string, Uint8Array, string]> = [
  ['the empty message', ascii(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['"abc"', ascii('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ['the 448-bit two-block message', ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'), '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
  ['a million "a"s', new Uint8Array(1_000_000).fill(0x61), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
];

describe('sha256', () => {
  for (const [name, message, digest] of VECTORS) {
    it(`answers the standard's digest of ${name}`, () => {
      expect(hex(sha256(message))).toBe(digest);
    });
  }

  it('agrees with node:crypto at every length from 0 to 200 bytes', () => {
    for (let length = 0; length <= 200; length++) {
      const message = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      expect([length, hex(sha256(message))]).toEqual([length, createHash('sha256').update(message).digest('hex')]);
    }
  });
});
