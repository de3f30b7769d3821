/**
 * Stored keys: the BLOB a user key is kept under in the file. A key of up to MAX_RAW_KEY_LENGTH UTF-16
 * code units is stored as those code units, little-endian (an even number of bytes): byte-exact for
 * every JavaScript string, lone surrogates included, which a UTF-8 text column would turn into U+FFFD
 * and so merge with other keys. A longer key is stored as one tag byte and the SHA-256 of its code
 * units (33 bytes, an odd number), so a digest can never equal a short key, a client's 16,000-character
 * key costs the file 33 bytes, and no one can compute two keys that share a digest (and so a limit).
 * The empty key is the empty BLOB.
 */
import { createHash } from 'node:crypto';

/** MAX_RAW_KEY_LENGTH is the longest key (in UTF-16 code units) stored as itself. */
export const MAX_RAW_KEY_LENGTH = 256;

const DIGEST_TAG = Buffer.of(0x23); // '#'

/** encodeKey is the BLOB `key` is stored under. */
export function encodeKey(key: string): Buffer {
  const units = Buffer.from(key, 'utf16le');
  if (key.length <= MAX_RAW_KEY_LENGTH) return units;
  return Buffer.concat([DIGEST_TAG, createHash('sha256').update(units).digest()]);
}
