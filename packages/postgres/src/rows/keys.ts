/**
 * Row keys: the bytea a (policy name, user key) pair is stored under, as hex. The name's length in
 * UTF-16 code units (two bytes, big-endian), then the name's code units, then the key's: byte-exact for
 * every JavaScript string, lone surrogates and NUL included (which a text column would refuse or merge),
 * and no two pairs share a row. A key longer than MAX_RAW_KEY_LENGTH code units is stored as one tag
 * byte and the SHA-256 of its code units (33 bytes, an odd number, so never a short key's even count):
 * a client's 16,000-character key costs the table 33 bytes, and no one can compute two keys that share
 * a digest, and so a limit.
 */
import { createHash } from 'node:crypto';

/** MAX_RAW_KEY_LENGTH is the longest key (in UTF-16 code units) stored as itself. */
export const MAX_RAW_KEY_LENGTH = 256;

const DIGEST_TAG = Buffer.of(0x23); // '#'

/** MAX_NAME_LENGTH is the longest policy name a row key can carry. */
export const MAX_NAME_LENGTH = 0xffff;

/** nameHead is the start of every row key of policy `name`, hex. */
export function nameHead(name: string): string {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(name.length);
  return Buffer.concat([length, Buffer.from(name, 'utf16le')]).toString('hex');
}

/** rowKey is the hex row key of `key` under a policy whose nameHead is `head`. */
export function rowKey(head: string, key: string): string {
  const units = Buffer.from(key, 'utf16le');
  if (key.length <= MAX_RAW_KEY_LENGTH) return head + units.toString('hex');
  return head + Buffer.concat([DIGEST_TAG, createHash('sha256').update(units).digest()]).toString('hex');
}

/** LEDGER_SUFFIX names a policy's booking-ledger rows (../bindings/reserve.ts); core's policy names never contain '#'. */
export const LEDGER_SUFFIX = '#book';
