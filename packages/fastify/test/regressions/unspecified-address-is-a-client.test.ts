/**
 * Regression: the unspecified address (`0.0.0.0`, `::` and their other spellings) was counted as a
 * client, so every request carrying it shared one bucket. It names no client: it is now a missing IP
 * (a MissingIpError by default, uncounted with missingIp 'skip'), like a missing address.
 */
import { expect, it } from 'vitest';
import { forwarded } from './forwarded.js';

const UNSPECIFIED = ['0.0.0.0', '::', '::0', '0:0:0:0:0:0:0:0', '::ffff:0.0.0.0', '[::]:443'];

it('never counts the unspecified address: 500 by default, uncounted with missingIp skip', async () => {
  const rejecting = await forwarded(1);
  for (const xff of UNSPECIFIED) expect(await rejecting.send(xff)).toBe(500);
  expect([rejecting.keys, rejecting.errors]).toEqual([[], UNSPECIFIED.map(() => 'MissingIpError')]);
  const skipping = await forwarded(1, { missingIp: 'skip' });
  for (const xff of UNSPECIFIED) expect(await skipping.send(xff)).toBe(200);
  expect([skipping.keys, skipping.ips]).toEqual([[], UNSPECIFIED]);
});
