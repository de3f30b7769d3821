/**
 * Redis Cluster's key-to-slot mapping, written from the cluster specification: CRC16 (XMODEM) of the
 * key's UTF-8 bytes, or of its hash tag (the bytes between the first '{' and the next '}', when that
 * is non-empty), modulo 16384. Used to check key layouts without a cluster.
 */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

export function slotOf(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % 16384;
  }
  return crc16(bytes) % 16384;
}
