/**
 * What is stored: a key's state as consecutive little-endian IEEE doubles in one BLOB (exact for every
 * value a step writes: fractions, -0, -Infinity in a sliding log's unused slots); the empty BLOB is the
 * empty state. A user key as the BLOB of its UTF-16 code units (byte-exact for every JavaScript string,
 * lone surrogates included), or, beyond MAX_RAW_KEY_LENGTH code units, one tag byte and the SHA-256 of
 * them (33 bytes, an odd length no short key has), so a long key costs 33 bytes and fits the column.
 * An instant as a DOUBLE column: MySQL has no infinities, so ±Infinity is stored as ±MAX_VALUE.
 */
import { createHash } from 'node:crypto';

/** MAX_RAW_KEY_LENGTH is the longest key (in UTF-16 code units) stored as itself (512 bytes: the column). */
export const MAX_RAW_KEY_LENGTH = 256;

const DIGEST_TAG = Buffer.of(0x23);

/** encodeKey is the BLOB `key` is stored under. */
export function encodeKey(key: string): Buffer {
  const units = Buffer.from(key, 'utf16le');
  if (key.length <= MAX_RAW_KEY_LENGTH) return units;
  return Buffer.concat([DIGEST_TAG, createHash('sha256').update(units).digest()]);
}

/** encodeState is the BLOB of `state` (a copy: the scratch output it came from is reused). */
export function encodeState(state: ArrayLike<number>): Buffer {
  const bytes = Buffer.allocUnsafe(state.length * 8);
  for (let i = 0; i < state.length; i++) bytes.writeDoubleLE(state[i] as number, i * 8);
  return bytes;
}

/** decodeState reads a state BLOB back; the empty BLOB is the empty state (undefined). */
export function decodeState(bytes: Uint8Array): Float64Array | undefined {
  if (bytes.byteLength === 0) return undefined;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const state = new Float64Array(bytes.byteLength >> 3);
  for (let i = 0; i < state.length; i++) state[i] = view.readDoubleLE(i * 8);
  return state;
}

/** storedInstant is `ms` as a DOUBLE column holds it (no infinities, no NaN). */
export function storedInstant(ms: number): number {
  if (ms > Number.MAX_VALUE || Number.isNaN(ms)) return Number.MAX_VALUE;
  return ms < -Number.MAX_VALUE ? -Number.MAX_VALUE : ms;
}
