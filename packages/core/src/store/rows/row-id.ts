/**
 * Row ids: the bytes a (policy name, key) pair is stored under on every row store, as hex. The name's
 * length in UTF-16 code units (two bytes, big-endian), then the name's code units, then the key's (each
 * little-endian): byte-exact for every JavaScript string, lone surrogates and NUL included (which a
 * text column would refuse or merge), and no two pairs share a row. A key longer than
 * MAX_RAW_KEY_LENGTH code units is stored as one tag byte ('#') and the SHA-256 of its code units: 33
 * bytes, an odd count, so never a short key's even one; a client's 16,000-character key costs a row 33
 * bytes, and no one can compute two keys that share a digest, and so a limit. Hex sorts as the bytes do,
 * so every process locks a batch's rows in one order.
 */
import { sha256 } from './sha256.js';

/** MAX_RAW_KEY_LENGTH is the longest key (in UTF-16 code units) stored as itself. */
export const MAX_RAW_KEY_LENGTH = 256;
/** MAX_NAME_LENGTH is the longest policy name a row id can carry (its length is two bytes). */
export const MAX_NAME_LENGTH = 0xffff;
/** A ban's rows and a booking ledger's rows are named after their policy with these suffixes (no policy name holds '#'). */
export const BAN_SUFFIX = '#ban';
export const LEDGER_SUFFIX = '#book';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** unitsHex is the UTF-16 code units of `text`, little-endian, as hex. */
function unitsHex(text: string): string {
  let hex = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    hex += (HEX[unit & 0xff] as string) + (HEX[unit >>> 8] as string);
  }
  return hex;
}

/** nameHead is the start of every row id of policy `name`: compute it once per binding. */
export function nameHead(name: string): string {
  return (HEX[name.length >>> 8] as string) + (HEX[name.length & 0xff] as string) + unitsHex(name);
}

/** rowId is the id of `key`'s row under the policy whose nameHead is `head`. */
export function rowId(head: string, key: string): string {
  if (key.length <= MAX_RAW_KEY_LENGTH) return head + unitsHex(key);
  const units = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    units[2 * i] = unit & 0xff;
    units[2 * i + 1] = unit >>> 8;
  }
  let hex = '23';
  for (const byte of sha256(units)) hex += HEX[byte] as string;
  return head + hex;
}
