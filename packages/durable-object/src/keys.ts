/**
 * Object names. A key's object is named by the store's prefix and the key. Names reach workerd as
 * UTF-8 (idFromName hashes them; an RPC from Node through Miniflare carries them so too), where a lone
 * surrogate becomes U+FFFD: distinct keys would then share one object, and so one limit. So a key that
 * is not well-formed UTF-16, or that starts with '#', is named by '#' and the hex of its UTF-16 code
 * units, four digits each; any other key by itself. No plain key starts with '#', so the naming is
 * injective.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** objectName is the name of the object holding `key` under `prefix` (see above). */
export function objectName(prefix: string, key: string): string {
  if (key.charCodeAt(0) !== 0x23 && !LONE_SURROGATE.test(key)) return prefix + key;
  let hex = '#';
  for (let i = 0; i < key.length; i++) hex += key.charCodeAt(i).toString(16).padStart(4, '0');
  return prefix + hex;
}
