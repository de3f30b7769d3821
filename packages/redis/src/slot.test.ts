/** slotOf against the slots Redis documents and a real server's CLUSTER KEYSLOT answers (cluster test). */
import { describe, expect, it } from 'vitest';
import { crc16, slotOf } from './slot.js';

describe('slotOf', () => {
  it('computes CRC16-XMODEM as the cluster specification', () => {
    expect(crc16('123456789')).toBe(0x31c3);
  });
  it.each([
    ['foo', 12182],
    ['bar', 5061],
    ['{user1000}.following', slotOf('user1000')],
    ['foo{}{bar}', slotOf('foo{}{bar}')],
    ['rk:tb:{203.0.113.7}', slotOf('203.0.113.7')],
  ])('%s is in slot %i', (key, slot) => {
    expect(slotOf(key)).toBe(slot);
  });
  it('hashes the whole key when the tag is empty', () => {
    expect(slotOf('foo{}{bar}')).toBe(crc16('foo{}{bar}') % 16384);
  });
});
