/**
 * Redis Cluster hash slots: CRC16 (XMODEM) of the key's hash tag (the text between the first `{` and
 * the next `}`, when not empty; else the whole key), modulo 16384 — the rule every cluster node uses
 * to place a key. The Batcher queues calls per slot on a cluster, since one script may only touch keys
 * of one slot.
 */

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

const encoder = new TextEncoder();

/** crc16 is CRC16-XMODEM over the UTF-8 bytes of `text`. */
export function crc16(text: string): number {
  let crc = 0;
  for (const byte of encoder.encode(text)) crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ byte) & 0xff] as number);
  return crc;
}

/** slotOf is the cluster slot of `key`. */
export function slotOf(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % 16384;
  }
  return crc16(key) % 16384;
}
