/** slotOf against the slots the cluster specification documents ('foo' 12182, 'bar' 5061), through hash tags. */
import { describe, expect, it } from 'vitest';
import { crc16, slotOf } from './slot.js';

describe('slotOf', () => {
  it('computes CRC16-XMODEM as the cluster specification', () => {
    expect(crc16('123456789')).toBe(0x31c3);
  });
  it.each([
    ['foo', 12182],
    ['bar', 5061],
    ['{foo}.following', 12182],
    ['rk:tb:{bar}', 5061],
    ['x{bar}y{foo}', 5061],
  ])('%s is in slot %i', (key, slot) => {
    expect(slotOf(key)).toBe(slot);
  });
  it('hashes the whole key when the tag is empty', () => {
    expect(slotOf('foo{}{bar}')).toBe(crc16('foo{}{bar}') % 16384);
  });
});
