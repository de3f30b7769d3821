/**
 * Key layout. A policy's state for a user key lives at `${prefix}${policy.name}:{${key}}`: the braces
 * make the user key the Redis Cluster hash tag, so every policy of one request (a composite's keys)
 * lands in one slot and one script can touch them all. Neither the prefix nor a policy name may hold a
 * brace, so the tag is always exactly the encoded user key and the layout is injective.
 *
 * The user key is written byte-exact when it is a plain string, and as `#` + the SHA-256 (hex) of its
 * UTF-16 code units otherwise: when it is empty or longer than MAX_RAW_KEY_LENGTH (bounding memory
 * per key against hostile input), holds a brace (which would cut the hash tag short or empty it, and an
 * empty tag scatters a composite across slots), is not well-formed UTF-16 (a lone surrogate would be
 * sent as U+FFFD, merging distinct keys), or starts with `#` itself (so no raw key can pose as a hash).
 */
import { createHash } from 'node:crypto';

/** MAX_RAW_KEY_LENGTH is the longest user key (in UTF-16 code units) stored verbatim. */
export const MAX_RAW_KEY_LENGTH = 256;

const SPECIAL = /[{}\uD800-\uDFFF]/;
const BRACE = /[{}]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** encodeKey is the hash-tag form of a user key: itself when plain, else `#` + SHA-256 hex. */
export function encodeKey(key: string): string {
  const plain = key.length >= 1 && key.length <= MAX_RAW_KEY_LENGTH && key.charCodeAt(0) !== 0x23 && (!SPECIAL.test(key) || (!BRACE.test(key) && !LONE_SURROGATE.test(key)));
  return plain ? key : `#${createHash('sha256').update(key, 'utf16le').digest('hex')}`;
}

/** keyHead is the constant part of a policy's keys, everything before the encoded user key. */
export function keyHead(prefix: string, policyName: string): string {
  return `${prefix}${policyName}:{`;
}

/** storageKey is the Redis key holding `policyName`'s state for `key` under `prefix`. */
export function storageKey(prefix: string, policyName: string, key: string): string {
  return `${keyHead(prefix, policyName)}${encodeKey(key)}}`;
}
